package approval_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// TestActionHashSEPVector is the §4.6 vector of DESIGN §5.
func TestActionHashSEPVector(t *testing.T) {
	got, err := approval.ActionHash("delete_resource", []byte(`{"resourceId":"abc123"}`), "https://example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	const want = "ac6d6eeaccf73644435269aaec565637351556061894ea90fc276fd3cebc576d"
	if hex.EncodeToString(got[:]) != want {
		t.Fatalf("got %x, want %s", got, want)
	}
}

// TestActionHashVectors checks canonicalization and framing against
// canonical forms written out by hand from RFC 8785 (not computed by the
// JCS library under test).
func TestActionHashVectors(t *testing.T) {
	const server = "urn:uuid:6b0c1f3e-8d2a-4c53-9f0e-2f4f1a7d9c11"
	cases := []struct {
		name, tool, args, canonical string
	}{
		{"absent", "t", ``, `{}`},
		{"empty", "t", ` { } `, `{}`},
		{"sorted and compact", "t", `{ "b" : 2, "a" : 1 }`, `{"a":1,"b":2}`},
		{"nested", "deploy", `{"env":{"region":"eu","zones":[3,1,{"z":true,"a":null}]},"dry":false}`,
			`{"dry":false,"env":{"region":"eu","zones":[3,1,{"a":null,"z":true}]}}`},
		// RFC 8785 §3.2.3: keys sort by UTF-16 code units, so U+1F600
		// (surrogates D83D DE00) sorts before U+FB33.
		{"unicode key order", "t", `{"\ufb33":7,"\ud83d\ude00":6,"\u20ac":5,"\u00f6":4,"\u0080":3,"1":2,"\r":1}`,
			"{\"\\r\":1,\"1\":2,\"\u0080\":3,\"\u00f6\":4,\"\u20ac\":5,\"\U0001F600\":6,\"\ufb33\":7}"},
		{"unicode strings", "t", `{"name":"caf\u00e9 \u2603","ctl":"a\u0001b\tc\"\\"}`,
			"{\"ctl\":\"a\\u0001b\\tc\\\"\\\\\",\"name\":\"caf\u00e9 \u2603\"}"},
		{"numbers", "t", `{"a":1e30,"b":4.50,"c":2e-3,"d":0.000001,"e":1e-7,"f":-0,"g":1E+2,"h":-12.5,"i":9007199254740991}`,
			`{"a":1e+30,"b":4.5,"c":0.002,"d":0.000001,"e":1e-7,"f":0,"g":100,"h":-12.5,"i":9007199254740991}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			canon, err := approval.CanonicalArguments([]byte(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if string(canon) != c.canonical {
				t.Fatalf("canonical\n got %s\nwant %s", canon, c.canonical)
			}
			got, err := approval.ActionHash(c.tool, []byte(c.args), server)
			if err != nil {
				t.Fatal(err)
			}
			want := sha256.Sum256([]byte(c.tool + "\x00" + c.canonical + "\x00" + server))
			if got != want {
				t.Fatalf("hash %x, want %x", got, want)
			}
		})
	}
}

func TestActionHashBindsEveryField(t *testing.T) {
	base, _ := approval.ActionHash("a", []byte(`{"x":1}`), "s1")
	for _, v := range [][3]string{{"b", `{"x":1}`, "s1"}, {"a", `{"x":2}`, "s1"}, {"a", `{"x":1}`, "s2"}} {
		h, err := approval.ActionHash(v[0], []byte(v[1]), v[2])
		if err != nil || h == base {
			t.Fatalf("%v: err=%v, same hash=%v", v, err, h == base)
		}
	}
}

func TestActionHashRefuses(t *testing.T) {
	for name, args := range map[string]string{
		"array":                               `[1]`,
		"string":                              `"x"`,
		"null":                                `null`,
		"duplicate keys":                      `{"a":1,"a":2}`,
		"invalid utf8":                        "{\"a\":\"\xff\"}",
		"truncated":                           `{"a":`,
		"trailing":                            `{"a":1} x`,
		"precision":                           `{"n":12345678901234567891}`,
		"rfc example beyond double precision": `{"n":333333333.33333329}`,
		"infinite":                            `{"n":1e400}`,
		"underflows to zero":                  `{"n":1e-400}`,
		"huge exponent":                       `{"n":1e-999999}`,
		"subnormal beyond its precision":      `{"n":0.` + strings.Repeat("0", 319) + `123456789012345}`,
		"longer than jsonnum.MaxLen":          `{"n":1.` + strings.Repeat("0", 2000) + `}`,
		"nested in an array":                  `{"a":[1,{"b":[9007199254740993]}]}`,
	} {
		if _, err := approval.ActionHash("t", []byte(args), "s"); !errors.Is(err, approval.ErrInvalidArguments) {
			t.Errorf("%s: err = %v, want ErrInvalidArguments", name, err)
		}
	}
	if _, err := approval.ActionHash("t\x00", []byte(`{}`), "s"); err == nil {
		t.Error("NUL in tool name accepted")
	}
	if _, err := approval.ActionHash("t", []byte(`{}`), ""); !errors.Is(err, approval.ErrInvalidServerID) {
		t.Errorf("empty serverId: %v", err)
	}
}

func TestValidateServerID(t *testing.T) {
	for _, bad := range []string{"", "  ", "mcp-default", "MCP-Default", "default", "localhost", "https://example.com/mcp",
		"https://api.example.org", "a\nb", string(make([]byte, 1025))} {
		if err := approval.ValidateServerID(bad); !errors.Is(err, approval.ErrInvalidServerID) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
	for _, good := range []string{"https://mcp.acme.dev/", "urn:uuid:6b0c1f3e-8d2a-4c53-9f0e-2f4f1a7d9c11", "https://auth.acme.dev"} {
		if err := approval.ValidateServerID(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
	_, err := approval.New(approval.Config{ServerID: "mcp-default", RPID: "acme.dev", Origins: []string{"https://acme.dev"}}, nil)
	if !errors.Is(err, approval.ErrInvalidServerID) {
		t.Fatalf("New with a constant serverId: %v", err)
	}
}

// TestActionHashSubnormalCollision is the differential the number check
// exists for: two 15-digit literals in the subnormal range are different
// values to a tool decoding json.Number, but one double to RFC 8785, so
// without the check an approval of one would verify the other.
func TestActionHashSubnormalCollision(t *testing.T) {
	zeros := strings.Repeat("0", 319)
	a := `{"amount":0.` + zeros + `123456789012345}`
	b := `{"amount":0.` + zeros + `123456789012346}`
	ca, errA := jcs.Transform([]byte(a))
	cb, errB := jcs.Transform([]byte(b))
	if errA != nil || errB != nil || string(ca) != string(cb) {
		t.Fatalf("premise: JCS should merge the two literals, got %q / %v and %q / %v", ca, errA, cb, errB)
	}
	for _, args := range []string{a, b} {
		if _, err := approval.ActionHash("pay", []byte(args), "srv"); !errors.Is(err, approval.ErrInvalidArguments) {
			t.Errorf("ActionHash accepted %.30s…: %v", args, err)
		}
	}
}

func TestActionHashExactNumbersAccepted(t *testing.T) {
	for _, args := range []string{`{"n":9007199254740992}`, `{"n":1e21}`, `{"n":5e-324}`, `{"n":0.1000000000000000}`, `{"n":1E+2}`} {
		if _, err := approval.ActionHash("t", []byte(args), "s"); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}
