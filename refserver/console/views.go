package console

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The console's view models: what the templates show, already formatted,
// so that the templates stay free of logic. Every string here reaches the
// page through html/template, which escapes it for its context; text that
// users or POSes supplied (names, nicknames, staff ids, error details) is
// never marked safe.

// timeLayout is how the console shows times (always UTC, the zone
// of the API's own time formats).
const timeLayout = "2006-01-02 15:04:05"

// formatTime formats Unix seconds, "" for nil.
func formatTime(unix *int64) string {
	if unix == nil {
		return ""
	}
	return time.Unix(*unix, 0).UTC().Format(timeLayout)
}

// ago says how long before now (Unix seconds) t was: "42s ago",
// "5m 3s ago", or "in 10s" for a time ahead of now.
func ago(t, now int64) string {
	if d := now - t; d < 0 {
		return "in " + formatDuration(-d)
	}
	return formatDuration(now-t) + " ago"
}

// formatDuration formats a non-negative number of seconds with its two
// largest units: "42s", "5m 3s", "2h 5m", "3d 4h".
func formatDuration(d int64) string {
	switch {
	case d < 60:
		return fmt.Sprintf("%ds", d)
	case d < 3600:
		return fmt.Sprintf("%dm %ds", d/60, d%60)
	case d < 86400:
		return fmt.Sprintf("%dh %dm", d/3600, d%3600/60)
	}
	return fmt.Sprintf("%dd %dh", d/86400, d%86400/3600)
}

// formatMoney formats cents as the API does ("12.50").
func formatMoney(cents int64) string { return client.MoneyFromCents(cents).String() }

// maskCard shows a wallet entry's number as the first six digits, six
// asterisks and the last four, or only "•••• last4" when the first six are
// not six digits. Never more: the full number is not stored anyway.
func maskCard(first6, last4 string) string {
	if !allDigits(last4, 4) {
		return "••••"
	}
	if !allDigits(first6, 6) {
		return "•••• " + last4
	}
	return first6 + "******" + last4
}

func allDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// locationView is a row of the locations page and the head of a
// location's page.
type locationView struct {
	ID                 int64
	Name               string
	Gateway            string
	POSStatus          string // online or offline
	LastHeartbeat      string // "" before the first
	HeartbeatAgo       string
	HasUniversalPOS    bool
	POSURL             string
	POSHealth          string // OK, FAILED, UNREACHABLE, or "" before the first check
	POSHealthMessage   string
	POSHealthCheckedAt string
	MenuSyncedAt       string
	MenuSyncedAgo      string
	OpenBills          int64
	PendingPayments    int64
}

// newLocationView shows l at now (Unix seconds); a heartbeat at most
// online old shows the location online.
func newLocationView(l store.ConsoleLocation, now int64, online time.Duration) locationView {
	v := locationView{
		ID:              l.LocationID,
		Name:            l.Name,
		Gateway:         l.Gateway,
		POSStatus:       string(wallet.POSStatusOffline),
		LastHeartbeat:   formatTime(l.LastHeartbeat),
		HasUniversalPOS: l.POSURL != nil,
		OpenBills:       l.OpenBills,
		PendingPayments: l.PendingPayments,
	}
	// The same rule as GET /v1/location/{id}'s posStatus.
	if l.LastHeartbeat != nil {
		v.HeartbeatAgo = ago(*l.LastHeartbeat, now)
		if now-*l.LastHeartbeat <= int64(online.Seconds()) {
			v.POSStatus = string(wallet.POSStatusOnline)
		}
	}
	if l.POSURL != nil {
		v.POSURL = *l.POSURL
	}
	if l.POSHealth != nil {
		v.POSHealth = *l.POSHealth
	}
	if l.POSHealthMessage != nil {
		v.POSHealthMessage = *l.POSHealthMessage
	}
	v.POSHealthCheckedAt = formatTime(l.POSHealthCheckedAt)
	v.MenuSyncedAt = formatTime(l.MenuSyncedAt)
	if l.MenuSyncedAt != nil {
		v.MenuSyncedAgo = ago(*l.MenuSyncedAt, now)
	}
	return v
}

// billView is a check as the location page shows it.
type billView struct {
	BillID        string
	CheckNumber   int64
	Status        string
	Version       int64
	TableNumber   int64
	StaffID       string
	Guests        int64
	Total         string
	Outstanding   string
	ServiceCharge string
	TipsPaid      string
	LastUpdated   string
	UpdatedAgo    string
}

func newBillView(b store.ConsoleBill, now int64) billView {
	return billView{
		BillID:        b.BillID,
		CheckNumber:   b.CheckNumber,
		Status:        b.Status,
		Version:       b.Version,
		TableNumber:   b.TableNumber,
		StaffID:       b.StaffID,
		Guests:        b.Guests,
		Total:         formatMoney(b.TotalAmount),
		Outstanding:   formatMoney(b.OutstandingAmount),
		ServiceCharge: formatMoney(b.ServiceChargeAmount),
		TipsPaid:      formatMoney(b.TipsPaid),
		LastUpdated:   formatTime(&b.LastUpdated),
		UpdatedAgo:    ago(b.LastUpdated, now),
	}
}

// paymentView is a payment as the location page shows it.
type paymentView struct {
	PaymentID   int64
	CheckNumber int64
	UserID      int64
	CardID      int64
	Card        string // •••• last4
	Amount      string
	Tip         string
	Status      string
	CreatedAt   string
	AcceptedAt  string
}

func newPaymentView(p store.ConsolePayment) paymentView {
	return paymentView{
		PaymentID:   p.PaymentID,
		CheckNumber: p.CheckNumber,
		UserID:      p.UserID,
		CardID:      p.CardID,
		Card:        maskCard("", p.CardLast4),
		Amount:      formatMoney(p.Amount),
		Tip:         formatMoney(p.Tip),
		Status:      p.Status,
		CreatedAt:   formatTime(&p.CreatedAt),
		AcceptedAt:  formatTime(p.AcceptedAt),
	}
}

// orderView is an order with its timeline.
type orderView struct {
	OrderID         string
	UserID          int64
	Total           string
	FulfillmentType string
	Status          string
	POSOrderID      string
	Attempts        int
	NextAttemptAt   string
	LastError       string
	CreatedAt       string
	Events          []orderEventView
}

type orderEventView struct {
	Status string
	Detail string
	At     string
}

func newOrderView(o store.ConsoleOrder) orderView {
	v := orderView{
		OrderID:       o.OrderID,
		UserID:        o.UserID,
		Total:         formatMoney(o.Total),
		Status:        o.Status,
		Attempts:      o.Attempts,
		NextAttemptAt: formatTime(o.NextAttemptAt),
		CreatedAt:     formatTime(&o.CreatedAt),
	}
	if o.FulfillmentType != nil {
		v.FulfillmentType = *o.FulfillmentType
	}
	if o.POSOrderID != nil {
		v.POSOrderID = *o.POSOrderID
	}
	if o.LastError != nil {
		v.LastError = *o.LastError
	}
	for _, e := range o.Events {
		v.Events = append(v.Events, orderEventView{Status: e.Status, Detail: e.Detail, At: formatTime(&e.At)})
	}
	return v
}

// userView is a user with their wallet entries.
type userView struct {
	UserID      int64
	Status      int
	DateCreated string
	LastUpdated string
	Cards       []cardView
}

// cardView is a wallet entry: masked number and provider flags.
type cardView struct {
	CardID    int64
	Masked    string
	Nickname  string
	Type      string
	Status    string
	Expiry    string
	Default   bool
	CreatedAt string
	Flags     []providerFlag // one per provider, in Config.Gateways order
}

// providerFlag is one of a card's provider flags (interface.md 2.2).
type providerFlag struct {
	Provider string
	Held     bool
}

func newUserView(u store.ConsoleUser, gateways []string) userView {
	v := userView{
		UserID:      u.UserID,
		Status:      u.UserStatus,
		DateCreated: formatTime(&u.DateCreated),
		LastUpdated: formatTime(&u.LastUpdated),
	}
	for _, c := range u.Cards {
		cv := cardView{
			CardID:    c.CardID,
			Masked:    maskCard(c.First6, c.Last4),
			Nickname:  c.Nickname,
			Type:      wallet.CardType(strconv.Itoa(c.CardTypeID)).String(),
			Status:    wallet.CardStatus(c.CardStatusID).String(),
			Expiry:    c.ExpiryMonth + "/" + c.ExpiryYear,
			Default:   u.DefaultCardID != nil && *u.DefaultCardID == c.CardID,
			CreatedAt: formatTime(&c.CreatedAt),
		}
		for _, g := range gateways {
			cv.Flags = append(cv.Flags, providerFlag{Provider: g, Held: slices.Contains(c.Providers, g)})
		}
		v.Cards = append(v.Cards, cv)
	}
	return v
}

// journalView is a journal entry as the requests page shows it.
type journalView struct {
	Seq        int64
	Time       string
	Method     string
	Route      string
	Status     int
	StatusKind string // ok, client-error or server-error, for styling
	ErrorCode  string
	Duration   string
	RequestID  string
	Credential string
	Subject    string // "user 3", "location 1", "key 2"
	LocationID string
}

func newJournalView(e journal.Entry) journalView {
	v := journalView{
		Seq:        e.Seq,
		Time:       e.Time.UTC().Format("15:04:05.000"),
		Method:     e.Method,
		Route:      e.Route,
		Status:     e.Status,
		StatusKind: "ok",
		Duration:   strconv.FormatFloat(e.DurationMs, 'f', 1, 64) + " ms",
		RequestID:  e.RequestID,
		Credential: e.Credential,
	}
	switch {
	case e.Status >= 500:
		v.StatusKind = "server-error"
	case e.Status >= 400:
		v.StatusKind = "client-error"
	}
	if e.ErrorCode != nil {
		v.ErrorCode = strconv.Itoa(int(*e.ErrorCode))
	}
	switch {
	case e.UserID != nil:
		v.Subject = "user " + strconv.FormatInt(*e.UserID, 10)
	case e.KeyID != nil:
		v.Subject = "key " + strconv.FormatInt(*e.KeyID, 10)
	case e.POSLocationID != nil:
		v.Subject = "location " + strconv.FormatInt(*e.POSLocationID, 10)
	}
	if e.LocationID != nil {
		v.LocationID = strconv.FormatInt(*e.LocationID, 10)
	}
	return v
}
