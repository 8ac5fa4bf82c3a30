package ceremony_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"

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
	bridge.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost:8787/c/unknown", nil))
	fmt.Println(rec.Code, rec.Header().Get("X-Frame-Options"))
	// Output: 404 DENY
}

// A server enrolling a passkey in the browser: the page reports success
// only once the check (here standing in for Gate.FinishEnrollment) accepts
// the browser's answer.
func ExampleBridge_CreateChecked() {
	urls := make(chan string, 1)
	bridge, _ := ceremony.New(&ceremony.Options{
		BaseURL: "https://acme.dev/approval", // mounted with http.StripPrefix("/approval", bridge)
		Open:    func(_ context.Context, url string) error { urls <- url; return nil },
	})
	done := make(chan error, 1)
	go func() {
		done <- bridge.CreateChecked(context.Background(), json.RawMessage(`{"challenge":"AAAA"}`),
			func(_ context.Context, registration json.RawMessage) error {
				return errors.New("enrollment refused (credential_already_enrolled)")
			})
	}()
	page := <-urls
	// The browser posts its answer; the page is told the verdict.
	// (Mounted under /approval, the Bridge sees the path without it.)
	req := httptest.NewRequest("POST", strings.Replace(page, "/approval", "", 1)+"/result", strings.NewReader(`{"response":{"id":"x"}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	bridge.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	fmt.Println(<-done)
	// Output:
	// 422 {"error":"enrollment refused (credential_already_enrolled)"}
	// enrollment refused (credential_already_enrolled)
}
