// Command bills-export writes the closed bills of a location in a date range
// to CSV, using the bills package's All iterator (so any range length works
// and each bill is fetched once).
//
// Usage:
//
//	go run ./examples/bills-export -base-url http://127.0.0.1:8080 \
//		-api-key "$HOSPO_API_KEY" -location 1 -from 2026-05-01 -to 2026-05-31 \
//		[-rows bill|item] [-concurrency 4] [-out bills.csv]
//
// Flags:
//
//	-base-url     the service's base URL (default the local sandbox)
//	-api-key      the vendor API key; when empty, $HOSPO_API_KEY is used, which
//	              keeps the key out of the process list and shell history
//	-location     the location id (required)
//	-from, -to    the range of lastUpdated, both ends included (required): an
//	              RFC 3339 time such as 2026-05-01T18:00:00+01:00, or a date
//	              such as 2026-05-01, meaning that whole day in UTC (-from from
//	              its first second, -to to its last)
//	-rows         bill (default): one row per bill; item: one row per menu item
//	-concurrency  bills fetched at the same time (default 4)
//	-out          output file (default standard output)
//
// Text that comes from the POS (staff ids, item, category, discount and
// modifier names) is written with a leading ' when it starts with =, +, -,
// @, a tab or a carriage return, so that a spreadsheet opening the file
// shows it as text instead of running it as a formula.
//
// Rows come in the iterator's order: by lastUpdated, then bill id. Times are
// UTC in the service's "YYYY-MM-DD hh:mm:ss" form; money is a plain decimal
// with two fraction digits.
//
// With -rows bill the columns are billId, locationId, checkNumber, status,
// lastUpdated, tableNumber, guests, staffId, totalAmount,
// serviceChargeAmount, discountsTotal, tipsPaid, outstandingAmount,
// paymentsCount, paymentsAmount, paymentsTip and userIds (the ids of the
// users who paid, separated by ";"). payments* cover the payments made
// through the service only.
//
// With -rows item the columns are billId, checkNumber, lastUpdated,
// tableNumber, staffId, itemId, itemName, category (the category path from
// the top, joined by " > "), quantity, price, priceSold, discountName,
// discountValue and modifiers (depth first, "name price" separated by "; ",
// a nested modifier's name prefixed with its parent's and " > "). A bill
// without items has no rows in this mode.
//
// The exit status is 2 for bad flags and 1 when the export fails; rows
// already written stay in the output.
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "bills-export:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "bills-export:", err)
		os.Exit(1)
	}
}

// usageError is a problem with the flags.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// config is the parsed command line.
type config struct {
	baseURL, apiKey string
	location        int64
	from, to        time.Time
	rows            string
	concurrency     int
	out             string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var from, to string
	fs := flag.NewFlagSet("bills-export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", client.SandboxURL, "the service's base URL")
	fs.StringVar(&c.apiKey, "api-key", "", "vendor API key (default $HOSPO_API_KEY)")
	fs.Int64Var(&c.location, "location", 0, "location id")
	fs.StringVar(&from, "from", "", "start of the range: RFC 3339 time or YYYY-MM-DD (UTC day)")
	fs.StringVar(&to, "to", "", "end of the range, included: RFC 3339 time or YYYY-MM-DD (UTC day)")
	fs.StringVar(&c.rows, "rows", "bill", "one row per bill or per item: bill|item")
	fs.IntVar(&c.concurrency, "concurrency", bills.DefaultConcurrency, "bills fetched at the same time")
	fs.StringVar(&c.out, "out", "", "output file (default standard output)")
	if err := fs.Parse(args); err != nil {
		return c, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return c, usageError{"unexpected arguments: " + strings.Join(fs.Args(), " ")}
	}
	if c.apiKey == "" {
		c.apiKey = os.Getenv("HOSPO_API_KEY")
	}
	var err error
	switch {
	case c.apiKey == "":
		return c, usageError{"-api-key (or $HOSPO_API_KEY) is required"}
	case c.location <= 0:
		return c, usageError{"-location is required"}
	case c.rows != "bill" && c.rows != "item":
		return c, usageError{"-rows must be bill or item"}
	case c.concurrency < 1:
		return c, usageError{"-concurrency must be at least 1"}
	}
	if c.from, err = parseTime(from, false); err != nil {
		return c, usageError{"-from: " + err.Error()}
	}
	if c.to, err = parseTime(to, true); err != nil {
		return c, usageError{"-to: " + err.Error()}
	}
	if c.from.After(c.to) {
		return c, usageError{"-from is after -to"}
	}
	return c, nil
}

// parseTime reads an RFC 3339 time or a date; a date is the first (or, for
// the end of a range, the last) second of that day in UTC.
func parseTime(s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("required")
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a YYYY-MM-DD date", s)
	}
	if end {
		d = d.AddDate(0, 0, 1).Add(-time.Second)
	}
	return d, nil
}

// run is the program; main only maps its error to an exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	c, err := client.New(client.WithBaseURL(cfg.baseURL), client.WithAPIKey(cfg.apiKey))
	if err != nil {
		return usageError{err.Error()}
	}
	svc := bills.NewService(c, bills.WithConcurrency(cfg.concurrency))

	out := stdout
	if cfg.out != "" {
		f, err := os.Create(cfg.out)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		out = f
	}
	bw := bufio.NewWriter(out)
	w := csv.NewWriter(bw)
	defer func() {
		w.Flush()
		if ferr := errors.Join(w.Error(), bw.Flush()); err == nil {
			err = ferr
		}
	}()

	rows, scopes := billRows, []bills.Scope{bills.ScopePayments, bills.ScopeUsers, bills.ScopeTable, bills.ScopeStaff}
	header := billHeader
	if cfg.rows == "item" {
		rows, scopes, header = itemRows, []bills.Scope{bills.ScopeItems, bills.ScopeTable, bills.ScopeStaff}, itemHeader
	}
	if err := w.Write(header); err != nil {
		return err
	}
	for b, err := range svc.All(ctx, cfg.location, cfg.from, cfg.to, scopes) {
		if err != nil {
			return err
		}
		for _, r := range rows(b) {
			if err := w.Write(r); err != nil {
				return err
			}
		}
	}
	return nil
}

var billHeader = []string{
	"billId", "locationId", "checkNumber", "status", "lastUpdated", "tableNumber", "guests", "staffId",
	"totalAmount", "serviceChargeAmount", "discountsTotal", "tipsPaid", "outstandingAmount",
	"paymentsCount", "paymentsAmount", "paymentsTip", "userIds",
}

// billRows is the one row of a bill in -rows bill mode.
func billRows(b *bills.Bill) [][]string {
	var discounts, paid, tips client.Money
	for _, d := range b.Discounts {
		discounts = discounts.Add(d.Value)
	}
	for _, p := range b.Payments {
		paid, tips = paid.Add(p.Amount), tips.Add(p.Tip)
	}
	users := make([]string, len(b.Users))
	for i, u := range b.Users {
		users[i] = strconv.FormatInt(u.UserID, 10)
	}
	return [][]string{{
		b.BillID, strconv.FormatInt(b.LocationID, 10), strconv.FormatInt(b.CheckNumber, 10), b.Status.String(),
		b.LastUpdated.UTC().Format(client.BillTimeLayout), tableNumber(b), guests(b), text(staffID(b)),
		b.TotalAmount.String(), b.ServiceChargeAmount.String(), discounts.String(), b.TipsPaid.String(),
		b.OutstandingAmount.String(), strconv.Itoa(len(b.Payments)), paid.String(), tips.String(),
		strings.Join(users, ";"),
	}}
}

var itemHeader = []string{
	"billId", "checkNumber", "lastUpdated", "tableNumber", "staffId", "itemId", "itemName", "category",
	"quantity", "price", "priceSold", "discountName", "discountValue", "modifiers",
}

// itemRows is one row per menu item of a bill in -rows item mode.
func itemRows(b *bills.Bill) [][]string {
	out := make([][]string, 0, len(b.Items))
	for _, it := range b.Items {
		var dName, dValue string
		if it.Discount != nil {
			dName, dValue = text(it.Discount.Name), it.Discount.Value.String()
		}
		out = append(out, []string{
			b.BillID, strconv.FormatInt(b.CheckNumber, 10), b.LastUpdated.UTC().Format(client.BillTimeLayout),
			tableNumber(b), text(staffID(b)), strconv.FormatInt(it.ID, 10), text(it.Name), text(categoryPath(it.Category)),
			strconv.Itoa(it.Quantity), it.Price.String(), it.PriceSold.String(), dName, dValue,
			text(strings.Join(modifiers(nil, "", it.Modifiers), "; ")),
		})
	}
	return out
}

// text guards a free-text cell against formula injection (see the package
// comment).
func text(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func tableNumber(b *bills.Bill) string {
	if b.Table == nil {
		return ""
	}
	return strconv.Itoa(b.Table.TableNumber)
}

func guests(b *bills.Bill) string {
	if b.Table == nil {
		return ""
	}
	return strconv.Itoa(b.Table.Guests)
}

func staffID(b *bills.Bill) string {
	if b.Staff == nil {
		return ""
	}
	return b.Staff.StaffID
}

// categoryPath renders a category and its parents from the top: the check
// gives the innermost category first.
func categoryPath(c possync.Category) string {
	var names []string
	for p := &c; p != nil; p = p.Category {
		names = append(names, p.Name)
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return strings.Join(names, " > ")
}

// modifiers flattens nested modifiers depth first into "name price"
// entries, nested names prefixed with their parents'.
func modifiers(out []string, prefix string, ms []possync.Modifier) []string {
	for _, m := range ms {
		name := prefix + m.Name
		out = append(out, name+" "+m.Price.String())
		out = modifiers(out, name+" > ", m.Modifiers)
	}
	return out
}
