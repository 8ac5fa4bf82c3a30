// Package aipvectors embeds the AIP v1alpha1 conformance vectors (testdata/README.md
// names their source, commit and license) and decodes them for the tests of the
// packages that implement each part: policy (decisions), dlp (redaction) and the
// root package (JSON-RPC errors over the wire).
package aipvectors

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"go.yaml.in/yaml/v4"
)

//go:embed testdata/basic/*.yaml testdata/full/*.yaml
var files embed.FS

// File is one vector file.
type File struct {
	Path        string `yaml:"-"` // e.g. "basic/errors.yaml"
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	SpecVersion string `yaml:"spec_version"`
	Tests       []Case `yaml:"tests"`
}

// Case is one test vector.
type Case struct {
	File        string   `yaml:"-"`
	ID          string   `yaml:"id"`
	Description string   `yaml:"description"`
	Note        string   `yaml:"note"`
	Policy      *string  `yaml:"policy"` // nil: no policy loaded
	Input       Input    `yaml:"input"`
	Expected    Expected `yaml:"expected"`
}

// Input is a vector's input. Decision vectors use Method, Tool, Args;
// error vectors may add Context and RequestID; DLP vectors use Type, Content.
type Input struct {
	Method    string         `yaml:"method"`
	Tool      string         `yaml:"tool"`
	Args      map[string]any `yaml:"args"`
	Context   map[string]any `yaml:"context"`
	RequestID any            `yaml:"request_id"`
	Type      string         `yaml:"type"`
	Content   string         `yaml:"content"`
}

// Expected is a vector's expected outcome.
type Expected struct {
	Decision       string         `yaml:"decision"`
	ErrorCode      *int           `yaml:"error_code"`
	Violation      *bool          `yaml:"violation"`
	ErrorMessage   string         `yaml:"error_message"`
	ErrorData      map[string]any `yaml:"error_data"`
	ResponseFormat map[string]any `yaml:"response_format"`
	Redacted       *bool          `yaml:"redacted"`
	Output         *string        `yaml:"output"`
	DLPEvents      []DLPEvent     `yaml:"dlp_events"`
}

// DLPEvent is an expected DLP finding: a rule name and its match count.
type DLPEvent struct {
	Rule  string `yaml:"rule"`
	Count int    `yaml:"count"`
}

// Files returns every embedded vector file, sorted by path.
func Files() ([]File, error) {
	var out []File
	err := fs.WalkDir(files, "testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".yaml" {
			return err
		}
		raw, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		var f File
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil {
			return fmt.Errorf("aipvectors: %s: %w", p, err)
		}
		f.Path = p[len("testdata/"):]
		for i := range f.Tests {
			f.Tests[i].File = f.Path
		}
		out = append(out, f)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// Cases returns every case of every file, in file order.
func Cases() ([]Case, error) {
	fs, err := Files()
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, f := range fs {
		out = append(out, f.Tests...)
	}
	return out, nil
}

// Raw returns the bytes of one embedded file, e.g. Raw("full/dlp.yaml").
func Raw(name string) ([]byte, error) { return files.ReadFile("testdata/" + name) }

// ArgsJSON returns the case's arguments the way they arrive over the wire:
// encoded as JSON and decoded again with UseNumber, so numbers are json.Number.
// A case without args gives an empty, non-nil map.
func (c Case) ArgsJSON() (map[string]any, error) {
	raw, err := json.Marshal(c.Input.Args)
	if err != nil {
		return nil, fmt.Errorf("aipvectors: %s: args: %w", c.ID, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out := map[string]any{}
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("aipvectors: %s: args: %w", c.ID, err)
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}
