package aipvectors_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/aipvectors"
)

// The files are copied unchanged from upstream; testdata/README.md lists their checksums.
func TestChecksumsAndCounts(t *testing.T) {
	want := map[string]struct {
		sum   string
		cases int
	}{
		"basic/authorization.yaml": {"2aa8fded973a4f4223b7586aec7661ea565b3e3f72daf6ce5bb7081476a8c026", 10},
		"basic/errors.yaml":        {"4a65116b15e806731e721bc5727bd1ba71667aea710488243df8520a0e6d4bb8", 8},
		"basic/methods.yaml":       {"fe7479ca91a39d74d4a8ed7cfa75dd409af23dbe0522105a27aa540b9869f2cb", 11},
		"full/arguments.yaml":      {"0a90fe657de6cb55e39261ed7a9820865a57b4ba0eaa178c99e4515400e4cf9d", 14},
		"full/dlp.yaml":            {"b602c0201ba4b9059e165e8b172f70636126ed28973a6323ee2368fba04522f3", 9},
		"full/normalization.yaml":  {"8f0f7a8d75f53d277dc2caf2eceb35ede0a83300fc2ac0cf5997efccdec07658", 13},
	}
	files, err := aipvectors.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("got %d files, want %d", len(files), len(want))
	}
	total := 0
	for _, f := range files {
		w, ok := want[f.Path]
		if !ok {
			t.Errorf("unexpected file %s", f.Path)
			continue
		}
		raw, err := aipvectors.Raw(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		if got := hex.EncodeToString(sum[:]); got != w.sum {
			t.Errorf("%s: sha256 %s, want %s (the vectors must stay byte for byte upstream's)", f.Path, got, w.sum)
		}
		if len(f.Tests) != w.cases {
			t.Errorf("%s: %d cases, want %d", f.Path, len(f.Tests), w.cases)
		}
		total += len(f.Tests)
	}
	if total != 65 {
		t.Errorf("%d cases in all, want 65", total)
	}
}

func TestArgsJSONKeepsNumbersVerbatim(t *testing.T) {
	cases, err := aipvectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.ID != "args-040" {
			continue
		}
		args, err := c.ArgsJSON()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := args["port"].(interface{ String() string }); !ok || got.String() != "8080" {
			t.Fatalf("port = %#v, want json.Number 8080", args["port"])
		}
		return
	}
	t.Fatal("case args-040 not found")
}
