package rules

import (
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The sandbox's diners (contract.md section 9): a wallet user of the
// sandbox's own pays checks through CreatePayment, so that every rule of
// a real payment applies to it, when asked to (PayCheck) and on a timer
// (SetDiners, RunDiners).

// CheckPayCheck checks the body of POST
// /sandbox/locations/{locationId}/checks/{checkNumber}/payments with the
// rules of a payment (wallet.CreatePaymentRequest.Validate): a 400002
// naming every failing field, nil when none fails.
func CheckPayCheck(req sandbox.PayCheckRequest) error {
	// An absent amount is worked out later from the check; a cent stands
	// in for it here, so that only the values sent are judged.
	wr := wallet.CreatePaymentRequest{Amount: client.MoneyFromCents(1)}
	if req.Amount != nil {
		wr.Amount = *req.Amount
	}
	if req.Tip != nil {
		wr.Tip = *req.Tip
	}
	var bad fielderr.Set
	_ = bad.Merge(wr.Validate()) // nil or a *client.ValidationError
	return invalid(&bad)
}

// PayCheck has the sandbox's diner pay towards check checkNumber of a
// location (POST /sandbox/locations/{locationId}/checks/{checkNumber}/payments).
// Without an amount it pays what the check still owes less its pending
// payments; a check that owes nothing beyond them is a 409002. req has
// passed CheckPayCheck.
func PayCheck(tx *store.Tx, locationID, checkNumber int64, req sandbox.PayCheckRequest) (wallet.Payment, error) {
	loc, err := tx.GetLocationDetails(locationID)
	if err != nil {
		return wallet.Payment{}, notFound(err, "Location")
	}
	var amount, tip int64
	if req.Tip != nil {
		tip = req.Tip.Cents()
	}
	if req.Amount != nil {
		amount = req.Amount.Cents()
	} else if amount, err = owedLessPending(tx, locationID, checkNumber); err != nil {
		return wallet.Payment{}, err
	}
	return payAsDiner(tx, loc, checkNumber, amount, tip)
}

// owedLessPending is what check checkNumber still owes less its pending
// payments, in hundredths: a 404001 for a check never pushed or void, a
// 409002 when nothing is left.
func owedLessPending(tx *store.Tx, locationID, checkNumber int64) (int64, error) {
	bill, err := tx.GetPayableBill(locationID, checkNumber)
	if err != nil {
		return 0, notFound(err, "Check")
	}
	if bill.Status == "void" {
		return 0, api.NotFound("Check")
	}
	pending, err := tx.PendingPaymentsTotal(bill.BillID)
	if err != nil {
		return 0, err
	}
	owed := bill.OutstandingAmount - pending
	if owed <= 0 {
		return 0, api.ErrMsg(client.CodeAmountExceedsOutstanding,
			"The check owes nothing beyond its pending payments.")
	}
	return owed, nil
}

// payAsDiner makes one payment of the sandbox's diner, amount and tip in
// hundredths, through CreatePayment.
func payAsDiner(tx *store.Tx, loc store.LocationDetails, checkNumber, amount, tip int64) (wallet.Payment, error) {
	userID, cardID, err := dinerCard(tx, loc.Gateway)
	if err != nil {
		return wallet.Payment{}, err
	}
	return CreatePayment(tx, userID, wallet.CreatePaymentRequest{
		LocationID:  loc.LocationID,
		CheckNumber: checkNumber,
		CardID:      cardID,
		Amount:      client.MoneyFromCents(amount),
		Tip:         client.MoneyFromCents(tip),
	})
}

// The sandbox diner's card: a Live card that the sandbox's provider
// tokenised for the gateway, like any test card a user adds.
const (
	dinerCardFirst6   = "411111"
	dinerCardLast4    = "1111"
	dinerCardNickname = "Sandbox diner"
	dinerCardYears    = 5 // it expires this many years after it is made
)

// dinerCard returns the sandbox diner's user and its card for gateway,
// making either when it does not exist yet (a reset removes both).
func dinerCard(tx *store.Tx, gateway string) (userID, cardID int64, err error) {
	userID, cardID, err = tx.SandboxDinerCard(gateway)
	if !errors.Is(err, store.ErrNotFound) {
		return userID, cardID, err
	}
	userID, err = tx.SandboxDinerUser()
	if errors.Is(err, store.ErrNotFound) {
		userID, err = tx.InsertUser()
	}
	if err != nil {
		return 0, 0, err
	}
	year := tx.Now().UTC().Year() + dinerCardYears
	cardID, err = tx.InsertCard(store.Card{
		UserID: userID, First6: dinerCardFirst6, Last4: dinerCardLast4, Nickname: dinerCardNickname,
		CardTypeID: cardTypeNumber(cardTypeForBIN(dinerCardFirst6)), CardStatusID: int(wallet.CardStatusLive),
		ExpiryMonth: "12", ExpiryYear: fmt.Sprintf("%02d", year%100),
	})
	if err != nil {
		return 0, 0, err
	}
	token := sim.NewProviderToken(gateway)
	if err := tx.InsertProviderToken(store.ProviderToken{Token: token, Provider: gateway,
		First6: dinerCardFirst6, Last4: dinerCardLast4, ExpiryMonth: 12, ExpiryYear: year % 100}); err != nil {
		return 0, 0, err
	}
	if err := tx.InsertCardToken(cardID, gateway, token); err != nil {
		return 0, 0, err
	}
	return userID, cardID, tx.InsertSandboxDinerCard(gateway, userID, cardID)
}

// DinersRequest is the body of PUT /sandbox/locations/{locationId}/diners.
// Pointers tell a value left out (split 1, tipPercent 0) from one sent.
type DinersRequest struct {
	EverySeconds *int64 `json:"everySeconds"`
	Split        *int64 `json:"split"`
	TipPercent   *int64 `json:"tipPercent"`
}

// The bounds of a location's diners.
const (
	maxDinersEvery = 30 * 24 * 3600 // a month of the virtual clock
	maxDinersSplit = 4
	maxDinersTip   = 30
)

// CheckDiners checks a diners body raw, decoded into req: a 400002 naming
// every failing field, nil when none fails.
func CheckDiners(raw []byte, req *DinersRequest) error {
	bad := missing(raw, "everySeconds")
	if req.EverySeconds != nil && (*req.EverySeconds < 1 || *req.EverySeconds > maxDinersEvery) {
		bad["everySeconds"] = fmt.Sprintf("must be between 1 and %d", maxDinersEvery)
	}
	if req.Split != nil && (*req.Split < 1 || *req.Split > maxDinersSplit) {
		bad["split"] = fmt.Sprintf("must be between 1 and %d", maxDinersSplit)
	}
	if req.TipPercent != nil && (*req.TipPercent < 0 || *req.TipPercent > maxDinersTip) {
		bad["tipPercent"] = fmt.Sprintf("must be between 0 and %d", maxDinersTip)
	}
	if len(bad) > 0 {
		return api.Invalid(bad)
	}
	return nil
}

// SetDiners starts or changes a location's diners; the first round is
// due everySeconds from now. req has passed CheckDiners.
func SetDiners(tx *store.Tx, locationID int64, req DinersRequest) (sandbox.Diners, error) {
	if _, err := tx.GetLocationDetails(locationID); err != nil {
		return sandbox.Diners{}, notFound(err, "Location")
	}
	d := store.Diners{LocationID: locationID, EverySeconds: *req.EverySeconds, Split: 1}
	if req.Split != nil {
		d.Split = *req.Split
	}
	if req.TipPercent != nil {
		d.TipPercent = *req.TipPercent
	}
	d.NextRunAt = tx.Unix() + d.EverySeconds
	if err := tx.PutDiners(d); err != nil {
		return sandbox.Diners{}, err
	}
	return GetDiners(tx, locationID)
}

// GetDiners returns a location's diners: a 404001 for an unknown location
// ("Location not found.") and for one without diners ("Diners not
// found.").
func GetDiners(tx *store.Tx, locationID int64) (sandbox.Diners, error) {
	if _, err := tx.GetLocationDetails(locationID); err != nil {
		return sandbox.Diners{}, notFound(err, "Location")
	}
	d, err := tx.GetDiners(locationID)
	if err != nil {
		return sandbox.Diners{}, notFound(err, "Diners")
	}
	out := sandbox.Diners{
		LocationID: d.LocationID, EverySeconds: int(d.EverySeconds), Split: int(d.Split),
		TipPercent: int(d.TipPercent), NextRunAt: unixTime(d.NextRunAt), LastError: d.LastError,
	}
	if d.LastRunAt != nil {
		t := unixTime(*d.LastRunAt)
		out.LastRunAt = &t
	}
	return out, nil
}

// StopDiners stops a location's diners; a location without any is fine,
// an unknown one is a 404001.
func StopDiners(tx *store.Tx, locationID int64) error {
	if _, err := tx.GetLocationDetails(locationID); err != nil {
		return notFound(err, "Location")
	}
	_, err := tx.DeleteDiners(locationID)
	return err
}

// RunDiners runs a round of a location's diners when it is due: each open
// check with something owed and no payment pending gets split payments
// (SplitCents) with tipPercent tips, and the next round is due
// everySeconds later. It returns how many payments it made. A round
// refused by a rule (the location's POS is offline, say) fails as a whole;
// the caller rolls it back and records why with RecordDinersFailure.
func RunDiners(tx *store.Tx, locationID int64) (int, error) {
	d, err := tx.GetDiners(locationID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && d.NextRunAt > tx.Unix()) {
		return 0, nil // stopped, or changed since it was found due
	}
	if err != nil {
		return 0, err
	}
	loc, err := tx.GetLocationDetails(locationID)
	if err != nil {
		return 0, err
	}
	checks, err := tx.OwedChecksWithoutPending(locationID)
	if err != nil {
		return 0, err
	}
	paid := 0
	for _, c := range checks {
		for _, amount := range SplitCents(c.Outstanding, d.Split) {
			if _, err := payAsDiner(tx, loc, c.CheckNumber, amount, TipCents(amount, d.TipPercent)); err != nil {
				return 0, fmt.Errorf("check %d: %w", c.CheckNumber, err)
			}
			paid++
		}
	}
	return paid, tx.RecordDinersRun(locationID, tx.Unix()+d.EverySeconds, "")
}

// RecordDinersFailure records that the due round of a location's diners
// failed with err: the next round is due everySeconds later, and the
// diners show why (the message of a catalogue error; "Internal error."
// for any other).
func RecordDinersFailure(tx *store.Tx, locationID int64, err error) error {
	d, gerr := tx.GetDiners(locationID)
	if errors.Is(gerr, store.ErrNotFound) || (gerr == nil && d.NextRunAt > tx.Unix()) {
		return nil
	}
	if gerr != nil {
		return gerr
	}
	reason := client.CodeInternal.Message()
	var ae *api.Error
	if errors.As(err, &ae) {
		reason = ae.Message
	}
	return tx.RecordDinersRun(locationID, tx.Unix()+d.EverySeconds, reason)
}

// SplitCents splits total hundredths into n equal payments, the last of
// which takes the remainder: 1000 in 3 is 333, 333, 334. A total of fewer
// cents than n is split into as many one-cent payments as it has (no
// payment is of zero).
func SplitCents(total, n int64) []int64 {
	n = max(1, min(n, total))
	part := total / n
	out := make([]int64, n)
	for i := range out {
		out[i] = part
	}
	out[n-1] = total - part*(n-1)
	return out
}

// TipCents is percent of amount hundredths, rounded half up to the cent.
func TipCents(amount, percent int64) int64 {
	return (amount*percent + 50) / 100
}
