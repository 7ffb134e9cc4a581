package client_test

import (
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
)

// A base URL mistake fails in New, saying what is wrong and what was
// probably meant.
func ExampleWithBaseURL() {
	_, err := client.New(client.WithBaseURL("127.0.0.1:8080"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, client.ErrInvalidBaseURL))

	c, err := client.New(client.WithBaseURL("http://127.0.0.1:8080"))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.BaseURL())
	// Output:
	// hospo: base URL "127.0.0.1:8080" is not an absolute URL (no http:// or https://); use "http://127.0.0.1:8080"
	// true
	// http://127.0.0.1:8080/
}
