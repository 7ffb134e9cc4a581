package fulfillment

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hospo-dev/hospo-go/client"
)

// Set applies a fulfillment method to an order. It calls m.Validate first
// and sends nothing when that fails. The service answers 202: the order is
// then sent to the location's POS in the background (see WaitForStatus).
//
// Setting the same method with the same fields again succeeds; a different
// one is client.ErrFulfillmentAlreadySet (409001). Another user's order is
// client.ErrNotFound.
//
// POST /ordering/v3/order/{orderId}/fulfillment-type/{type}
func (s *Service) Set(ctx context.Context, orderID string, m Method, opts ...client.Option) error {
	if m == nil || isNilPointer(m) {
		return errors.New("fulfillment: set: nil method")
	}
	if orderID == "" {
		return errors.New("fulfillment: set: empty order id")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("fulfillment: set %s: %w", m.Type(), err)
	}
	_, err := s.c.Do(ctx, &client.Request{
		Method: "POST",
		Route:  "/ordering/v3/order/{orderId}/fulfillment-type/{method}",
		Params: []string{orderID, string(m.Type())},
		Body:   m,
		Auth:   client.AuthAccessToken,
	}, nil, opts...)
	if err != nil {
		return fmt.Errorf("fulfillment: set %s: %w", m.Type(), err)
	}
	return nil
}

// isNilPointer catches a typed nil such as (*OrderAtTable)(nil), which would
// otherwise panic in Validate.
func isNilPointer(m Method) bool {
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
