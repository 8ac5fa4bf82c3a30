package gatehouse

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

// shownArgs returns the arguments a human asked about c must be shown: the
// arguments the handler receives, which for go-sdk's typed tools are the
// ones sent with the tool's input-schema defaults filled in, and the names
// of the top-level arguments the defaults filled in or changed (sorted;
// nil when none). The policy decides on the same arguments
// (defaultedPolicy); before, the prompt showed only what the agent sent,
// so an agent that left "to" out of a mail tool got "body: hi" approved
// and the mail went to the schema's default recipients.
//
// ok is false when the defaults cannot be applied or read: the caller
// denies, as the policy stage would have.
func (g *Guard) shownArgs(c *call) (args json.RawMessage, defaulted []string, ok bool) {
	if c.srv == nil {
		return c.rawArgs, nil, true
	}
	t, err := g.listed(c)
	if err != nil {
		return nil, nil, false
	}
	full, defaulted, err := defaultedArgs(t, c.rawArgs)
	if err != nil {
		return nil, nil, false
	}
	if len(defaulted) == 0 {
		return c.rawArgs, nil, true
	}
	return full, defaulted, true
}

// defaultedArgs returns raw with t's input-schema defaults filled in, as
// go-sdk's typed tools fill them in before the handler runs, and the
// sorted names of the top-level arguments whose value that added or
// changed (nil, with full nil, when none).
func defaultedArgs(t *mcp.Tool, raw json.RawMessage) (full json.RawMessage, defaulted []string, err error) {
	full, err = withSchemaDefaults(t, raw)
	if err != nil || full == nil {
		return nil, nil, err
	}
	sent, err := grant.CanonicalArgs(raw)
	if err != nil {
		return nil, nil, err
	}
	runs, err := grant.CanonicalArgs(full)
	if err != nil {
		return nil, nil, err
	}
	for name, v := range runs {
		if s, present := sent[name]; !present || s != v {
			defaulted = append(defaulted, name)
		}
	}
	if len(defaulted) == 0 {
		return nil, nil, nil
	}
	slices.Sort(defaulted)
	return full, defaulted, nil
}

// defaultsNote is the line that tells the human which arguments the tool
// fills in from its input-schema defaults ("" for none).
func defaultsNote(defaulted []string) string {
	if len(defaulted) == 0 {
		return ""
	}
	return "Not sent by the agent; the tool fills in from its input-schema defaults: " + quotedNames(defaulted)
}

// quotedNames is names quoted, invisible runes escaped, comma-separated.
func quotedNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = runes.Escape(strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// cannotShowDefaults is the reason an ask is denied when the arguments the
// handler would receive cannot be worked out.
const cannotShowDefaults = "The tool's input-schema defaults cannot be applied, so the arguments it would run with cannot be shown for approval and the call was denied"
