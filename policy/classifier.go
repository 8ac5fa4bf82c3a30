package policy

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// ErrInvalidClassifier reports [ClassifierOptions] a [Classifier] cannot
// be built from.
var ErrInvalidClassifier = errors.New("policy: invalid classifier options")

// ClassifierOptions configure a [Classifier]. nil means defaults.
type ClassifierOptions struct {
	// Overrides maps tool names to their class, before the built-in table
	// of [Classify]. Names are normalized with [normalize.Name]; two names
	// normalizing alike are an error.
	Overrides map[string]Class
	// Default is the class of tools nothing matches (default
	// CategoryUnknown with RiskHigh, as [Classify]).
	Default *Class
}

// Classifier is [Classify] with per-tool overrides and its own default
// (ACP §5.5). A Classifier is immutable and safe for concurrent use; a nil
// *Classifier is [Classify].
type Classifier struct {
	overrides map[string]Class
	def       Class
}

// NewClassifier returns a Classifier with the built-in table and opts'
// overrides. opts may be nil.
func NewClassifier(opts *ClassifierOptions) (*Classifier, error) {
	c := &Classifier{overrides: map[string]Class{}, def: Class{CategoryUnknown, RiskHigh}}
	if opts == nil {
		return c, nil
	}
	for name, cl := range opts.Overrides {
		if err := cl.validate(); err != nil {
			return nil, fmt.Errorf("%w: override for %q: %w", ErrInvalidClassifier, clipName(name), err)
		}
		n := normalize.Name(name)
		if n == "" {
			return nil, fmt.Errorf("%w: override for an empty tool name", ErrInvalidClassifier)
		}
		if _, dup := c.overrides[n]; dup {
			return nil, fmt.Errorf("%w: two overrides normalize to %q", ErrInvalidClassifier, clipName(n))
		}
		c.overrides[n] = cl
	}
	if opts.Default != nil {
		if err := opts.Default.validate(); err != nil {
			return nil, fmt.Errorf("%w: Default: %w", ErrInvalidClassifier, err)
		}
		c.def = *opts.Default
	}
	return c, nil
}

func (cl Class) validate() error {
	if !cl.Risk.Valid() {
		return fmt.Errorf("risk %q is not low, medium, high or critical", clipName(string(cl.Risk)))
	}
	if cl.Category == "" {
		return fmt.Errorf("empty category")
	}
	return nil
}

// Classify returns the class of tool: its override if any, else the first
// row of the ACP §5.5 table whose prefix the normalized name starts with,
// else the default. "ＳＥＮＤ_email" and "send\u200b_email" are
// "send_email".
func (c *Classifier) Classify(tool string) Class {
	if c == nil {
		return Classify(tool)
	}
	n := normalize.Name(tool)
	if cl, ok := c.overrides[n]; ok {
		return cl
	}
	if pc := Classify(n); pc.Category != CategoryUnknown {
		return pc
	}
	return c.def
}

// clipName shortens a name quoted in an error.
func clipName(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
