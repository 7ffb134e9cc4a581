package codec_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/codec"
)

// Decode keeps apart what breaks a value's own rule (decoded as zero, the
// rest read) and what makes the body unreadable (a *Malformed naming the
// field, never its value). Package api's tests cover the catalogue errors
// made of these.
func TestDecode(t *testing.T) {
	t.Parallel()
	type item struct {
		Price client.Money `json:"price"`
	}
	type body struct {
		Name  string `json:"name"`
		Items []item `json:"items"`
	}
	tests := []struct {
		raw          string
		wantProblems map[string]string
		wantName     string
		wantMessage  string
	}{
		{raw: `{"name":"a","items":[{"price":1.25}]}`, wantName: "a"},
		{raw: `{"name":"a","items":[{"price":1.25},{"price":0.001}]}`, wantName: "a",
			wantProblems: map[string]string{"items[1].price": "must have at most 2 decimal places"}},
		{raw: `{"name":4242424242424242}`, wantMessage: `Malformed JSON body: field "name" must be a string, not number.`},
		{raw: `{"items":[{"price":"1.00"}]}`, wantMessage: `Malformed JSON body: field "items[0].price" must be a number.`},
		{raw: ``, wantMessage: "Malformed JSON body: the body is empty."},
		{raw: `{"name":"a"} {}`, wantMessage: "Malformed JSON body: unexpected data after the JSON value."},
	}
	for _, tt := range tests {
		var v body
		problems, err := codec.Decode([]byte(tt.raw), &v)
		var m *codec.Malformed
		switch {
		case tt.wantMessage != "":
			if !errors.As(err, &m) || m.Message != tt.wantMessage {
				t.Errorf("Decode(%s) = %v; want a *Malformed %q", tt.raw, err, tt.wantMessage)
			}
		case err != nil:
			t.Errorf("Decode(%s): %v", tt.raw, err)
		default:
			if diff := cmp.Diff(tt.wantProblems, problems); diff != "" || v.Name != tt.wantName {
				t.Errorf("Decode(%s): name %q, problems (-want +got):\n%s", tt.raw, v.Name, diff)
			}
		}
	}
}

// CheckText refuses, before Decode sees a body, the text encoding/json
// would take altered.
func TestCheckText(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"name":"caf\u00e9 café 😀 \ud83d\ude00"}`: "",
		`{"name":"\\ud800"}`:                       "",
		"{\"name\":\"\xff\"}":                      "Malformed JSON body: the body is not valid UTF-8.",
		`{"name":"a\ud83dx"}`:                      "Malformed JSON body: a \\u escape at byte 10 is half a surrogate pair.",
	} {
		err := codec.CheckText([]byte(raw))
		var m *codec.Malformed
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckText(%s) = %v", raw, err)
		case want != "" && (!errors.As(err, &m) || m.Message != want):
			t.Errorf("CheckText(%s) = %v; want a *Malformed %q", raw, err, want)
		}
	}
}
