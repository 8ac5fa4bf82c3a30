package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

// Drivers appended to the README's snippets: read one JSON command on
// stdin, print the JSON result.
const (
	pythonDriver = `
import json, sys
req = json.load(sys.stdin)
body = base64.b64decode(req["body"])
if req["op"] == "verify":
    print(json.dumps(verify(req["secret"], req["headers"], body, req["tolerance"])))
else:
    print(json.dumps(sign(req["secret"], body)))
`
	nodeDriver = `
let input = "";
process.stdin.on("data", (d) => (input += d)).on("end", () => {
  const req = JSON.parse(input), body = Buffer.from(req.body, "base64");
  console.log(JSON.stringify(req.op === "verify" ? verify(req.secret, req.headers, body, req.tolerance) : sign(req.secret, body)));
});
`
)

// verifier runs one README snippet with its interpreter.
type verifier struct {
	t    *testing.T
	argv []string // interpreter and script
}

// readmeVerifier extracts the fenced block of lang from README.md, adds
// the driver and finds the interpreter: python3 on PATH; for Node,
// $GATEHOUSE_NODE (set by .ci/run) or node on PATH. A missing interpreter
// skips, or fails under GATEHOUSE_INTEGRATION=require.
func readmeVerifier(t *testing.T, lang, driver, ext string, interp ...string) *verifier {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no %s block", lang)
	}
	var bin string
	for _, c := range interp {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
			t.Fatalf("%v not found and GATEHOUSE_INTEGRATION=require: the README's %s verifier must run", interp, lang)
		}
		t.Skipf("%v not found: the README's %s verifier is not run (install it, or set GATEHOUSE_INTEGRATION=require to make this a failure)", interp, lang)
	}
	script := filepath.Join(t.TempDir(), "verify"+ext)
	if err := os.WriteFile(script, append(m[1], driver...), 0o600); err != nil {
		t.Fatal(err)
	}
	return &verifier{t: t, argv: []string{bin, script}}
}

func (v *verifier) call(cmd map[string]any, out any) {
	v.t.Helper()
	in, _ := json.Marshal(cmd)
	c := exec.Command(v.argv[0], v.argv[1:]...)
	c.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	res, err := c.Output()
	if err != nil {
		v.t.Fatalf("%s: %v\n%s", v.argv[0], err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		v.t.Fatalf("%s printed %q: %v", v.argv[0], res, err)
	}
}

func headerMap(h http.Header) map[string]string {
	return map[string]string{"webhook-id": h.Get("webhook-id"), "webhook-timestamp": h.Get("webhook-timestamp"), "webhook-signature": h.Get("webhook-signature")}
}

func (v *verifier) verify(secret consent.Secret, h http.Header, body []byte, tolerance int64) bool {
	var ok bool
	v.call(map[string]any{"op": "verify", "secret": string(secret), "headers": headerMap(h), "body": body, "tolerance": tolerance}, &ok)
	return ok
}

func (v *verifier) sign(secret consent.Secret, body []byte) http.Header {
	var m map[string]string
	v.call(map[string]any{"op": "sign", "secret": string(secret), "body": body}, &m)
	h := http.Header{}
	for k, val := range m {
		h.Set(k, val)
	}
	return h
}

// TestReadmeVerifiers runs the README's Python and Node snippets for real:
// against the specification's test vector, with near misses that must
// fail, and as the approver of a live Channel in both directions.
func TestReadmeVerifiers(t *testing.T) {
	node := os.Getenv("GATEHOUSE_NODE")
	for _, lang := range []struct {
		name, fence, driver, ext string
		interp                   []string
	}{
		{"python", "python", pythonDriver, ".py", []string{"python3"}},
		{"node", "js", nodeDriver, ".js", []string{node, "node"}},
	} {
		t.Run(lang.name, func(t *testing.T) {
			v := readmeVerifier(t, lang.fence, lang.driver, lang.ext, lang.interp...)
			checkVector(t, v)
			checkLive(t, v)
		})
	}
}

func checkVector(t *testing.T, v *verifier) {
	forever := int64(1) << 40 // the vector is from 2021
	vec := vecHeader(vecSignature)
	if !v.verify(vecSecret, vec, []byte(vecBody), forever) {
		t.Fatal("the snippet refuses the Standard Webhooks test vector")
	}
	rotated := vecHeader("v1,bm9wZQ== " + vecSignature)
	if !v.verify(vecSecret, rotated, []byte(vecBody), forever) {
		t.Error("the snippet refuses a rotated signature list")
	}
	for name, c := range map[string]struct {
		secret consent.Secret
		h      http.Header
		body   string
		tol    int64
	}{
		"other body":  {vecSecret, vec, vecBody + " ", forever},
		"other key":   {otherSecret, vec, vecBody, forever},
		"stale":       {vecSecret, vec, vecBody, 300},
		"dotted id":   {vecSecret, func() http.Header { h := vecHeader(vecSignature); h.Set("webhook-id", "msg.x"); return h }(), vecBody, forever},
		"only v1a":    {vecSecret, vecHeader("v1a," + vecSignature[3:]), vecBody, forever},
		"moved stamp": {vecSecret, func() http.Header { h := vecHeader(vecSignature); h.Set("webhook-timestamp", "1614265331"); return h }(), vecBody, forever},
	} {
		if v.verify(c.secret, c.h, []byte(c.body), c.tol) {
			t.Errorf("%s: the snippet accepts it", name)
		}
	}
}

// checkLive: a Channel asks; the snippet verifies the request and signs
// the decision it returns; the Channel accepts it. Then the snippet signs
// with a wrong secret, and the Channel refuses.
func checkLive(t *testing.T, v *verifier) {
	secret := webhook.NewSecret()
	answerWith := make(chan consent.Secret, 1) // the secret the snippet signs the decision with
	verified := make(chan bool, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ok := v.verify(secret, r.Header, body, 300)
		tampered := v.verify(secret, r.Header, append(body, ' '), 300)
		verified <- ok && !tampered
		var req consent.ConsentRequest
		json.Unmarshal(body, &req)
		reply, _ := json.Marshal(webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved, Approver: "script"})
		copyHeader(rw.Header(), v.sign(<-answerWith, reply))
		rw.Write(reply)
	}))
	defer srv.Close()
	w, err := webhook.New(&webhook.Options{URL: srv.URL, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	answerWith <- secret
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := w.Ask(ctx, newRequest(t, newClock(), map[string]any{"to": "bob"}))
	if !<-verified {
		t.Fatal("the snippet did not verify the channel's request (or accepted a tampered body)")
	}
	if err != nil || rep.Decision != consent.Approved {
		t.Fatalf("the channel refused the snippet's signed decision: %+v %v", rep, err)
	}
	answerWith <- webhook.NewSecret()
	_, err = w.Ask(ctx, newRequest(t, newClock(), map[string]any{"to": "eve"}))
	<-verified
	if !errors.Is(err, consent.ErrChannel) {
		t.Fatalf("a decision signed with another secret: %v, want ErrChannel", err)
	}
}
