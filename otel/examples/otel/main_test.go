package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP trace receiver: it decodes each protobuf
// ExportTraceServiceRequest posted to /v1/traces.
type receiver struct {
	mu    sync.Mutex
	spans map[string][]string // span name -> hex trace ids
	bad   []string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		r.fail(req.Method + " " + req.URL.Path + " " + req.Header.Get("Content-Type"))
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusBadRequest)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, 8<<20)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			r.fail(err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	var msg collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &msg)
	}
	if err != nil {
		r.fail(err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans[s.Name] = append(r.spans[s.Name], hexID(s.TraceId))
			}
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (r *receiver) fail(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, s)
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestDemoExportsSpans runs the example against a receiver started here
// and checks the spans of its calls arrived, the traced one in the
// client's trace.
func TestDemoExportsSpans(t *testing.T) {
	rec := &receiver{spans: map[string][]string{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-collector", srv.URL, "-demo"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "env: AWS_ACCESS_KEY_ID=[REDACTED:") || !strings.Contains(out.String(), "rm: denied") {
		t.Errorf("demo output:\n%s", out.String())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bad) > 0 {
		t.Fatalf("bad requests: %v", rec.bad)
	}
	if n := len(rec.spans["tools/call echo"]); n != 2 {
		t.Errorf("%d echo spans, want 2: %v", n, rec.spans)
	}
	if len(rec.spans["tools/call env"]) != 1 || len(rec.spans["tools/call rm"]) != 1 {
		t.Errorf("spans: %v", rec.spans)
	}
	traced := false
	for _, id := range rec.spans["tools/call echo"] {
		traced = traced || id == strings.Split(DemoTraceparent, "-")[1]
	}
	if !traced {
		t.Errorf("no echo span in the client's trace: %v", rec.spans["tools/call echo"])
	}
}
