package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/hospo-dev/hospo-go/refserver/openapi"
)

// The embedded documents are plain JSON: hand them to any OpenAPI tool.
func ExampleSpec() {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title string `json:"title"`
		} `json:"info"`
	}
	if err := json.Unmarshal(openapi.Spec(), &doc); err != nil {
		panic(err)
	}
	fmt.Println(doc.OpenAPI, doc.Info.Title)
	// Output: 3.1.0 hospo reference server
}
