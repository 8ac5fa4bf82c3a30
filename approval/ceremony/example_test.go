package ceremony_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
)

func ExampleNew() {
	bridge, err := ceremony.New(&ceremony.Options{
		BaseURL: "http://localhost:8787",
		Open: func(_ context.Context, url string) error {
			fmt.Println("open", url, "in your browser to approve")
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	// Serve it: http.Serve(listener, bridge). Unknown ceremonies are 404.
	rec := httptest.NewRecorder()
	bridge.ServeHTTP(rec, httptest.NewRequest("GET", "/c/unknown", nil))
	fmt.Println(rec.Code, rec.Header().Get("X-Frame-Options"))
	// Output: 404 DENY
}
