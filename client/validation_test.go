package client

import (
	"errors"
	"fmt"
	"testing"
)

func TestValidationError(t *testing.T) {
	t.Parallel()
	err := error(&ValidationError{Fields: map[string]string{"status": "must be open, closed or void", "items[0].plu": "required"}})
	if got, want := err.Error(), "hospo: invalid request: items[0].plu: required; status: must be open, closed or void"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", err), ErrValidation) {
		t.Error("errors.Is(err, ErrValidation) = false")
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("errors.Is(err, ErrNotFound) = true")
	}
	if got := (&ValidationError{}).Error(); got != "hospo: invalid request" {
		t.Errorf("empty Error() = %q", got)
	}
}
