// Command seed fills a new reference server database with a realistic
// amount of history, to measure how the server's costs grow with its data:
// by default 10,000 locations, 1,000,000 bills of nested checks over a
// year (50,000 of them at one busy location over the last 31 days),
// payments made and accepted on a share of them, and orders.
//
// It writes through the server's own store, in large transactions, with
// the store's clock set to each batch's time in the past, so that the rows
// are exactly what the server itself would have written, and it takes
// minutes rather than the hours the API would.
//
//	go run ./refserver/cmd/seed -db /tmp/seeded.db
//	go run ./refserver/cmd/refserver -db /tmp/seeded.db
//
// It prints what it made and credentials to measure with (the busy
// location's POS token, an API key for it, a user token) as JSON.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hospo-dev/hospo-go/internal/cli"
)

func main() {
	cli.Main(func(ctx context.Context) int {
		return cli.Status("seed", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	})
}

// options are the command's flags.
type options struct {
	db        string
	locations int
	bills     int
	busyBills int
	days      int
	users     int
	paidPct   int
	orders    int
	batch     int
	seed      uint64
	end       time.Time
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", "", "the database file to create (must not exist)")
	fs.IntVar(&o.locations, "locations", 10_000, "locations")
	fs.IntVar(&o.bills, "bills", 1_000_000, "bills in all, the busy location's included")
	fs.IntVar(&o.busyBills, "busy-bills", 50_000, "bills of the busy location (the first), all in the last 31 days")
	fs.IntVar(&o.days, "days", 365, "days of history the other bills spread over")
	fs.IntVar(&o.users, "users", 1_000, "wallet users, each with one card, who make the payments")
	fs.IntVar(&o.paidPct, "paid-percent", 30, "percentage of bills paid through the service before they closed")
	fs.IntVar(&o.orders, "orders", 100_000, "orders")
	fs.IntVar(&o.batch, "batch", 2_000, "bills per transaction")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random choices, so that a run can be repeated")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.db == "":
		return o, errors.New("-db is required")
	case o.locations < 1, o.bills < 0, o.busyBills < 0, o.busyBills > o.bills, o.days < 31, o.users < 1, o.batch < 1, o.orders < 0:
		return o, errors.New("-locations, -users and -batch must be at least 1, -days at least 31, -busy-bills at most -bills, and counts not negative")
	case o.paidPct < 0 || o.paidPct > 100:
		return o, errors.New("-paid-percent must be 0..100")
	case o.busyBills < o.bills && o.locations < 2:
		return o, errors.New("bills beyond the busy location's need a second location")
	}
	if _, err := os.Stat(o.db); err == nil {
		return o, fmt.Errorf("%s exists; seed only makes new databases", o.db)
	}
	o.end = time.Now().UTC().Truncate(time.Minute)
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	s, err := newSeeder(ctx, o)
	if err != nil {
		return err
	}
	res, err := s.run(ctx, stderr)
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if fi, err := os.Stat(o.db); err == nil {
		res.DatabaseBytes = fi.Size()
		if res.Bills > 0 {
			res.BytesPerBill = fi.Size() / int64(res.Bills)
		}
	}
	return res.write(stdout)
}
