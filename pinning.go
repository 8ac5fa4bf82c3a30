package gatehouse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// CodeDefinitionChanged is the JSON-RPC code of a call refused because the
// tool's definition changed since it was pinned. AIP v1alpha2 names -32013
// for this; its text is not among the specifications this module
// implements (AIP v1alpha1 has no schema_hash), so the message and the
// acceptance API are gatehouse's own.
const CodeDefinitionChanged = -32013

// MessageDefinitionChanged is the JSON-RPC message of CodeDefinitionChanged.
const MessageDefinitionChanged = "Tool definition changed"

// pinMetaKey marks a tools/list entry whose definition changed since it
// was pinned.
const pinMetaKey = "io.github.gatehouse-dev/pin"

// maxPins bounds the definitions remembered per server and the drift the
// Guard reports. Tool names are the server's own (trusted, in process),
// and a server lists at most maxIndexTools.
const maxPins = maxIndexTools

// digestRule is the canonical form a definition is digested in: RFC 8785,
// numbers kept as written and member names kept even when they are equal
// under case folding. The digest identifies the bytes the server itself
// lists and decides nothing about what a value means, so nothing a schema
// may legally hold is refused (a refused definition could never be called).
var digestRule = jcs.Rule{Numbers: jcs.AsWritten, AllowFoldedNames: true}

// ToolDigest returns the digest gatehouse pins for a tool: the lowercase hex
// SHA-256 of the RFC 8785 canonical JSON of the tool as a client lists it
// (name, title, description, input and output schema, annotations, icons,
// _meta; gatehouse.AddTool's own marker left out). Two definitions have the
// same digest exactly when a client would read the same definition, however
// their JSON is spaced or ordered.
//
// It is the one definition digest of the module: pinning, the elicitation
// state and grants all bind to it. Give it the tool as the server lists it:
// mcp.AddTool fills in an input schema inferred from the handler's type, so
// the *mcp.Tool passed to it may digest differently; [Guard.Drift] reports
// the digests as listed.
func ToolDigest(t *mcp.Tool) (string, error) {
	b, err := definitionJSON(t)
	if err != nil {
		return "", err
	}
	return digestJSON(t.Name, b)
}

// definitionJSON is the JSON encoding of t as listed, AddTool's marker
// left out.
func definitionJSON(t *mcp.Tool) ([]byte, error) {
	if t == nil {
		return nil, errors.New("gatehouse: ToolDigest of a nil tool")
	}
	b, err := json.Marshal(withoutMarker([]*mcp.Tool{t})[0])
	if err != nil {
		return nil, fmt.Errorf("gatehouse: encoding the definition of tool %q: %w", clipName(t.Name), err)
	}
	return b, nil
}

// digestJSON is the digest of a definition's JSON encoding b.
func digestJSON(name string, b []byte) (string, error) {
	canon, err := jcs.Transform(b, digestRule)
	if err != nil {
		return "", fmt.Errorf("gatehouse: canonicalizing the definition of tool %q: %w", clipName(name), err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// digest is ToolDigest of a listed tool, remembering the last encoding of
// each pinned name and its digest: a definition encoded to the same bytes
// as last time is not canonicalized and hashed again. x.mu is not held.
func (x *toolIndex) digest(t *mcp.Tool) (string, error) {
	b, err := definitionJSON(t)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	last, ok := x.lastJSON[t.Name]
	x.mu.Unlock()
	if ok && string(last.json) == string(b) {
		return last.digest, nil
	}
	d, err := digestJSON(t.Name, b)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, pinned := x.pinned[normalizeTool(t.Name)]; pinned {
		if x.lastJSON == nil {
			x.lastJSON = map[string]encoded{}
		}
		x.lastJSON[t.Name] = encoded{json: b, digest: d}
	}
	return d, nil
}

// encoded is a definition's JSON encoding and its digest.
type encoded struct {
	json   []byte
	digest string
}

// PinOptions configure tool-definition pinning. Pinning is on by default
// (a nil *PinOptions): each tool's definition digest ([ToolDigest]) is
// pinned when the Guard first sees it (at Install, on a tools/list, when
// the tool list is read again after notifications/tools/list_changed, or at
// the first call), and a call to a tool whose definition differs from its
// pin is refused with CodeDefinitionChanged until the digest is accepted.
// Pins are kept by the tool's normalized name, the name the policy
// authorizes: a tool registered again under another spelling (Deploy for
// deploy) meets the old pin, whose digest names the old spelling.
//
// The definition is read on every tools/call, through the server's own
// tools/list handler (and any middleware added before Install): about one
// tools/list per call, linear in the number of tools (BENCHMARKS.md).
type PinOptions struct {
	// Off turns pinning off: definitions may change without notice.
	Off bool
	// Digests pins tools, by name (normalized: spellings of one name
	// share a pin), to digests
	// the author reviewed (from ToolDigest or Guard.Drift): such a tool is
	// never pinned on first sight, so a definition that differs is
	// refused from the first call on, across restarts and on every
	// replica. This is the Go-option form of AIP v1alpha2's schema_hash.
	Digests map[string]string
}

// Drift is a tool whose listed definition differs from its pin, as last
// found by a refused call or a tools/list.
type Drift struct {
	Tool    string // the exact name
	Pinned  string // the pinned digest
	Current string // the digest of the definition listed now
}

// pinBook is the Guard's side of pinning: the digests the author accepted
// (PinOptions.Digests, AcceptDefinition) and the drift found. Each
// server's pins live in its toolIndex.
type pinBook struct {
	off bool

	mu       sync.Mutex
	accepted map[string]string // normalized name -> accepted digest
	drift    map[string]Drift  // exact name -> last drift refused
}

func newPinBook(o *PinOptions) (*pinBook, error) {
	b := &pinBook{accepted: map[string]string{}, drift: map[string]Drift{}}
	if o == nil {
		return b, nil
	}
	b.off = o.Off
	for name, d := range o.Digests {
		if !validDigest(d) {
			return nil, fmt.Errorf("gatehouse: Options.Pins.Digests[%q] is not a digest (64 lowercase hex digits from gatehouse.ToolDigest)", clipName(name))
		}
		if other, dup := b.accepted[normalizeTool(name)]; dup && other != d {
			return nil, fmt.Errorf("gatehouse: Options.Pins.Digests has several names that normalize to %q with different digests", clipName(normalizeTool(name)))
		}
		b.accepted[normalizeTool(name)] = d
	}
	if b.off && len(b.accepted) > 0 {
		return nil, errors.New("gatehouse: Options.Pins.Off is set with Options.Pins.Digests: choose one")
	}
	return b, nil
}

func validDigest(d string) bool {
	if len(d) != 2*sha256.Size {
		return false
	}
	for _, r := range d {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func (b *pinBook) acceptedFor(name string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.accepted[normalizeTool(name)]
	return d, ok
}

// AcceptDefinition accepts digest (from [ToolDigest] or [Guard.Drift]) as
// the definition of the tool registered under the name tool (normalized), on
// every server the Guard is installed on: the next call to a tool listed
// with that digest re-pins it and goes on; approvals given for the old
// definition stay void (they bind the digest they were given for). Like
// PinOptions.Digests, it also pins the tool to digest on a server that has
// not seen it yet. It is an error when pinning is off or digest is not a
// digest.
func (g *Guard) AcceptDefinition(tool, digest string) error {
	if g.pins.off {
		return errors.New("gatehouse: AcceptDefinition: pinning is off (Options.Pins.Off)")
	}
	if !validDigest(digest) {
		return fmt.Errorf("gatehouse: AcceptDefinition: %q is not a digest (64 lowercase hex digits from gatehouse.ToolDigest)", clipName(digest))
	}
	b := g.pins
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.accepted[normalizeTool(tool)]; !ok && len(b.accepted) >= maxPins {
		return fmt.Errorf("gatehouse: AcceptDefinition: more than %d accepted definitions", maxPins)
	}
	b.accepted[normalizeTool(tool)] = digest
	g.log.Info("gatehouse: a tool definition was accepted", "tool", clipName(tool), "digest", digest)
	if d, ok := b.drift[tool]; ok && d.Current == digest {
		delete(b.drift, tool)
	}
	return nil
}

// Drift returns the tools whose definition was found changed since it was
// pinned (by a refused call or a tools/list), sorted by name, with both
// digests: review the change, then accept it with [Guard.AcceptDefinition].
func (g *Guard) Drift() []Drift {
	b := g.pins
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Drift, 0, len(b.drift))
	for _, d := range b.drift {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

func (b *pinBook) noteDrift(d Drift) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.drift[d.Tool]; ok || len(b.drift) < maxPins {
		b.drift[d.Tool] = d
	}
}

// pinLocked returns the pin of the tool listed under name with digest cur,
// pinning it on first sight (to the accepted digest when the author gave
// one, else to cur), and re-pinning it when cur is the digest the author
// accepted since. ok is false when the tool has no pin and no room is left
// for one. x.mu is held.
func (x *toolIndex) pinLocked(name, cur string) (string, bool) {
	key := normalizeTool(name) // the policy's name for the tool: a respelling meets the same pin
	acc, hasAcc := x.book.acceptedFor(name)
	p, ok := x.pinned[key]
	switch {
	case !ok && hasAcc:
		p = acc
	case !ok:
		p = cur
	case cur != p && hasAcc && cur == acc:
		p = cur // the author accepted this definition since
	}
	if _, had := x.pinned[key]; !had && len(x.pinned) >= maxPins {
		return "", false
	}
	if x.pinned == nil {
		x.pinned = map[string]string{}
	}
	x.pinned[key] = p
	return p, true
}

// pinAll pins every tool of a tools/list walk not pinned yet, in the order
// listed; only those are digested. Of spellings sharing one normalized
// name (a collision: calls to either are refused) the first listed is
// pinned, the same on every guard, never by a map's order. A definition
// that cannot be digested is never pinned. It reports whether every tool
// is pinned after (pins are never removed, so a walk of the same tools
// needs no second look), or pinning is off. x.mu is held.
func (x *toolIndex) pinAllLocked(walk []listedTool) bool {
	if x.book == nil || x.book.off {
		return true
	}
	all := true
	for _, e := range walk {
		if _, ok := x.pinned[normalizeTool(e.name)]; ok {
			continue
		}
		d := definitionDigest(e.t)
		if d == "" {
			all = false
			continue
		}
		if _, ok := x.pinLocked(e.name, d); !ok {
			all = false
		}
	}
	return all
}

// pin reports the pin of the tool listed under name with digest cur.
func (x *toolIndex) pin(name, cur string) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.pinLocked(name, cur)
}

// current reads the definition the server lists under the exact name raw
// now, through the handler below the Guard. It is nil when no tool has
// that name.
func (x *toolIndex) current(ctx context.Context, req mcp.Request, raw string) (*mcp.Tool, error) {
	x.mu.Lock()
	next := x.next
	x.mu.Unlock()
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if next == nil || ss == nil {
		return nil, errors.New("gatehouse: no session to list the server's tools on")
	}
	var found *mcp.Tool
	err := eachListedTool(ctx, next, ss, func(t *mcp.Tool) (bool, error) {
		if t.Name == raw {
			found = t
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// definitionChanged is the refusal of a call to a tool whose definition
// differs from its pin: it names the tool and both digest prefixes.
func definitionChanged(tool, raw, pinned, cur string) policy.Decision {
	return policy.Decision{Outcome: policy.Block, Violation: true, Code: CodeDefinitionChanged, Message: MessageDefinitionChanged,
		Reason: fmt.Sprintf("The definition of tool %q changed since it was pinned (pinned %s, now %s); calls to it are refused until the server's author reviews the change and accepts the new digest (gatehouse.Guard.AcceptDefinition or Options.Pins.Digests)",
			clipName(raw), prefix(pinned), prefix(cur)),
		Method: policy.MethodToolsCall, Tool: tool}
}
