package dlp_test

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/aipvectors"
)

// aipPolicy is the part of an AgentPolicy that DLP reads (AIP §3.6). The
// policy package owns the full schema; this test decodes only spec.dlp.
type aipPolicy struct {
	Spec struct {
		DLP *struct {
			Enabled        *bool `yaml:"enabled"`
			DetectEncoding bool  `yaml:"detect_encoding"`
			FilterStderr   bool  `yaml:"filter_stderr"`
			Patterns       []struct {
				Name  string `yaml:"name"`
				Regex string `yaml:"regex"`
			} `yaml:"patterns"`
		} `yaml:"dlp"`
	} `yaml:"spec"`
}

// The AIP v1alpha1 DLP vectors (full/dlp.yaml) through the scanner: output
// text, the redacted flag and the DLP events (rule and count, AIP §6.4).
func TestAIPVectors(t *testing.T) {
	cases, err := aipvectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.File != "full/dlp.yaml" {
			continue
		}
		n++
		t.Run(c.ID, func(t *testing.T) {
			if c.Policy == nil || c.Expected.Output == nil {
				t.Fatal("vector without policy or expected output")
			}
			var p aipPolicy
			if err := yaml.NewDecoder(bytes.NewReader([]byte(*c.Policy))).Decode(&p); err != nil {
				t.Fatal(err)
			}
			d := p.Spec.DLP
			if d == nil {
				t.Fatal("vector policy without spec.dlp")
			}
			var pats []dlp.Pattern
			for _, x := range d.Patterns {
				pats = append(pats, dlp.Pattern{Name: x.Name, Regex: x.Regex})
			}
			s, err := dlp.New(pats, &dlp.Options{DetectEncoding: d.DetectEncoding})
			if err != nil {
				t.Fatal(err)
			}
			out, findings := c.Input.Content, []dlp.Finding(nil)
			if d.Enabled == nil || *d.Enabled { // AIP §3.6: enabled defaults to true
				out, findings = s.Redact(c.Input.Content)
			}
			if out != *c.Expected.Output {
				t.Errorf("output %q, want %q", out, *c.Expected.Output)
			}
			if c.Expected.Redacted != nil && *c.Expected.Redacted != (len(findings) > 0) {
				t.Errorf("redacted %v, want %v", len(findings) > 0, *c.Expected.Redacted)
			}
			if c.Expected.DLPEvents != nil {
				var got []aipvectors.DLPEvent
				for _, f := range findings {
					got = append(got, aipvectors.DLPEvent{Rule: f.Rule, Count: f.Count})
				}
				if len(got) != len(c.Expected.DLPEvents) {
					t.Fatalf("events %v, want %v", got, c.Expected.DLPEvents)
				}
				for i := range got {
					if got[i] != c.Expected.DLPEvents[i] {
						t.Errorf("event %d: %v, want %v", i, got[i], c.Expected.DLPEvents[i])
					}
				}
			}
		})
	}
	if n != 9 {
		t.Errorf("ran %d DLP vectors, want 9", n)
	}
}
