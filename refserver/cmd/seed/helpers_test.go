package main

import (
	"math/rand/v2"

	"github.com/hospo-dev/hospo-go/possync"
)

func newCheckForTest(locationID int64) *possync.Check {
	return newCheck(rand.New(rand.NewPCG(1, 2)), locationID, 999_999, possync.CheckOpen)
}
