package rules

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// decline is the answer to a payment that the sandbox provider declines
// with token pt: a 402001, with contextData {"declineCode": ...} for a
// magic card (contract.md section 9). A decline that blocks the card
// (fraudulent) sets the card's status to 5 and answers through
// api.Committed, so that the block is committed although the payment
// fails: later payments with the card are 409005.
func decline(tx *store.Tx, cardID int64, pt store.ProviderToken) error {
	e := api.Err(client.CodePaymentDeclined)
	if pt.DeclineCode == "" {
		return e
	}
	e.ContextData = map[string]string{"declineCode": pt.DeclineCode}
	if !sim.DeclineBlocksCard(pt.DeclineCode) {
		return e
	}
	if err := tx.SetCardStatus(cardID, int(wallet.CardStatusBlockedFraud)); err != nil {
		return err
	}
	return api.Committed(e)
}
