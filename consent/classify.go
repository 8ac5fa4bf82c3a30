package consent

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// Classification is a tool's category and default risk (ACP §5.5).
type Classification struct {
	Category Category
	Risk     Risk
}

// Unclassified is what a tool matching no prefix and no override gets by
// default: unknown category, high risk, so that trust levels 0 and 1 still
// ask about it (fail closed). ClassifierOptions.Default changes it.
var Unclassified = Classification{CategoryUnknown, RiskHigh}

// ClassifierOptions configure a [Classifier]. nil means defaults.
type ClassifierOptions struct {
	// Overrides maps tool names to their classification, before the
	// built-in table. Names are normalized with [normalize.Name]; two names
	// normalizing alike are an error.
	Overrides map[string]Classification
	// Default is the classification of tools nothing matches (default
	// [Unclassified]).
	Default *Classification
}

// Classifier maps tool names to categories and risk levels (ACP §5.5). A
// Classifier is immutable and safe for concurrent use.
type Classifier struct {
	overrides map[string]Classification
	def       Classification
}

// NewClassifier returns a Classifier with the built-in table and opts'
// overrides. opts may be nil.
func NewClassifier(opts *ClassifierOptions) (*Classifier, error) {
	c := &Classifier{overrides: map[string]Classification{}, def: Unclassified}
	if opts == nil {
		return c, nil
	}
	for name, cl := range opts.Overrides {
		if err := cl.validate(); err != nil {
			return nil, fmt.Errorf("%w: override for %q: %w", ErrInvalidOptions, clip(name), err)
		}
		n := normalize.Name(name)
		if n == "" {
			return nil, fmt.Errorf("%w: override for an empty tool name", ErrInvalidOptions)
		}
		if _, dup := c.overrides[n]; dup {
			return nil, fmt.Errorf("%w: two overrides normalize to %q", ErrInvalidOptions, clip(n))
		}
		c.overrides[n] = cl
	}
	if opts.Default != nil {
		if err := opts.Default.validate(); err != nil {
			return nil, fmt.Errorf("%w: Default: %w", ErrInvalidOptions, err)
		}
		c.def = *opts.Default
	}
	return c, nil
}

func (cl Classification) validate() error {
	if !cl.Risk.Valid() {
		return fmt.Errorf("risk %q is not low, medium, high or critical", clip(string(cl.Risk)))
	}
	if cl.Category == "" {
		return fmt.Errorf("empty category")
	}
	return nil
}

// Classify returns the classification of tool: its override if any, else
// the first row of the ACP §5.5 table whose prefix the normalized name
// starts with, else the default. "ＳＥＮＤ_email" and "send\u200b_email"
// are "send_email".
func (c *Classifier) Classify(tool string) Classification {
	n := normalize.Name(tool)
	if cl, ok := c.overrides[n]; ok {
		return cl
	}
	// The ACP §5.5 table lives in policy, which ACP rule lists match on.
	if pc := policy.Classify(n); pc.Category != policy.CategoryUnknown {
		return Classification{Category: pc.Category, Risk: pc.Risk}
	}
	return c.def
}

// Classify classifies tool with the built-in table only (see
// [Classifier.Classify]).
func Classify(tool string) Classification { return defaultClassifier.Classify(tool) }

var defaultClassifier = &Classifier{def: Unclassified}
