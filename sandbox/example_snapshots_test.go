package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// A test suite sets a scene up once, saves it, and restores it before
// each test: what a test makes is gone for the next one.
func ExampleService_RestoreSnapshot() {
	url, stop := runSandbox()
	defer stop()
	ctx := context.Background()
	c, err := client.New(client.WithBaseURL(url), client.WithAdminKey(exampleAdminKey))
	if err != nil {
		log.Fatal(err)
	}
	sb := sandbox.NewService(c)

	scene, err := sb.CreateSnapshot(ctx, "demo fixture")
	if err != nil {
		log.Fatal(err)
	}
	// A test makes a user...
	u, err := sb.CreateUser(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// ...and the next one starts from the scene again.
	f, err := sb.RestoreSnapshot(ctx, scene.SnapshotID)
	if err != nil {
		log.Fatal(err)
	}
	uc, err := client.New(client.WithBaseURL(url), client.WithAccessToken(u.AccessToken))
	if err != nil {
		log.Fatal(err)
	}
	_, err = wallet.NewService(uc).GetWallet(ctx)
	fmt.Println("users in the fixture:", len(f.Users))
	fmt.Println("the user made after the snapshot is gone:", errors.Is(err, client.ErrAccessTokenInvalid))
	// Output:
	// users in the fixture: 2
	// the user made after the snapshot is gone: true
}
