package gatehouse_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/normalize"
)

// idxModel is what the guard must decide, computed from the lists alone:
// pins by normalized name (as sets of possible digests, though the guard's
// pins are one each), accepted digests, and the listing
// the index last read (the index reads a session's list when a call comes
// on another session than the last read, or names a tool it lacks).
type idxModel struct {
	pins     map[string]map[string]bool // normalized name -> possible pinned digests
	acc      map[string]string
	lastSess int
	last     []string // exact names as last read
}

func digestOr(t *mcp.Tool) string {
	d, err := gatehouse.ToolDigest(t)
	if err != nil {
		return ""
	}
	return d
}

// firstNamed is the first listed tool named exactly n.
func firstNamed(l []*mcp.Tool, n string) *mcp.Tool {
	for _, t := range l {
		if t.Name == n {
			return t
		}
	}
	return nil
}

// pinAll pins each listed tool not pinned yet (the first of a name listed
// twice; of spellings sharing one new pin, the first listed).
func (m *idxModel) pinAll(l []*mcp.Tool) {
	fresh := map[string]map[string]bool{}
	seen := map[string]bool{}
	for _, t := range l {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		k := normalize.Name(t.Name)
		d := digestOr(t)
		if m.pins[k] != nil || d == "" {
			continue
		}
		if a, ok := m.acc[k]; ok {
			d = a
		}
		if fresh[k] == nil {
			fresh[k] = map[string]bool{d: true} // the spelling listed first
		}
	}
	maps.Copy(m.pins, fresh)
}

// check is the dispatch check: whether the call may go on.
func (m *idxModel) check(s int, n string, l []*mcp.Tool) bool {
	known := slices.Contains(m.last, n)
	if !known || s != m.lastSess {
		m.last, m.lastSess = m.last[:0], s
		for _, t := range l {
			if !slices.Contains(m.last, t.Name) {
				m.last = append(m.last, t.Name)
			}
		}
		m.pinAll(l)
		known = slices.Contains(m.last, n)
	}
	same := 0
	for _, x := range m.last {
		if normalize.Name(x) == normalize.Name(n) {
			same++
		}
	}
	return known && same == 1
}

// pin is the pin stage's pin of the called tool with digest cur: the
// possible pins after it.
func (m *idxModel) pin(n, cur string) map[string]bool {
	k := normalize.Name(n)
	a, hasAcc := m.acc[k]
	switch {
	case m.pins[k] == nil && hasAcc:
		m.pins[k] = map[string]bool{a: true}
	case m.pins[k] == nil:
		m.pins[k] = map[string]bool{cur: true}
	case hasAcc && cur == a:
		m.pins[k] = map[string]bool{cur: true}
	}
	return m.pins[k]
}

// call checks the guard's answer to a call of n on session s against the
// model and narrows the model's pins by it.
func (m *idxModel) call(t *testing.T, r *idxRig, s int, n, step string) {
	t.Helper()
	l := r.lists[r.ss[s]]
	got := r.call(t, s, n)
	tool := firstNamed(l, n)
	cur := ""
	if tool != nil {
		if cur = digestOr(tool); cur == "" {
			// The policy stage cannot read its schema's defaults: refused
			// before the dispatch stage reads the list.
			if got == 0 {
				t.Fatalf("%s: %s ran with an undigestable definition", step, n)
			}
			return
		}
	}
	if ok := m.check(s, n, l); tool == nil || !ok {
		if got == 0 {
			t.Fatalf("%s: %s ran on session %d, which does not list it alone", step, n, s)
		}
		return
	}
	set := m.pin(n, cur)
	switch {
	case got == 0 && !set[cur]:
		t.Fatalf("%s: %s ran with definition %.12s, pinned to %v", step, n, cur, slices.Collect(maps.Keys(set)))
	case got == 0:
		m.pins[normalize.Name(n)] = map[string]bool{cur: true}
	case got != gatehouse.CodeDefinitionChanged:
		t.Fatalf("%s: %s refused with %d, want 0 or %d", step, n, got, gatehouse.CodeDefinitionChanged)
	case len(set) == 1 && set[cur]:
		t.Fatalf("%s: %s refused as changed, yet its definition is the pinned one", step, n)
	default:
		delete(set, cur)
	}
}

var idxNames = []string{"alpha", "ALPHA", "beta", "gamma", "Gamma", "delta"}

// mutate changes the rig's lists at random, in place or not.
func (m *idxModel) mutate(t *testing.T, rnd *rand.Rand, r *idxRig, objs *[]*mcp.Tool) string {
	s := r.ss[rnd.IntN(len(r.ss))]
	l := r.lists[s]
	pick := func() *mcp.Tool { return (*objs)[rnd.IntN(len(*objs))] }
	switch op := rnd.IntN(10); {
	case op == 0:
		o := pick()
		o.Description = []string{"reads", "deletes"}[rnd.IntN(2)]
		return "describe " + o.Name + " as " + o.Description
	case op == 1:
		o := pick()
		old := o.Name
		o.Name = idxNames[rnd.IntN(len(idxNames))]
		return "rename " + old + " to " + o.Name
	case op == 2 && len(l) > 0:
		i := rnd.IntN(len(l))
		c := *l[i]
		l[i] = &c
		*objs = append(*objs, &c)
		return "new pointer for " + c.Name
	case op == 3 && len(l) < 8:
		o := pick()
		if rnd.IntN(2) == 0 {
			o = idxTool(idxNames[rnd.IntN(len(idxNames))], "reads")
			*objs = append(*objs, o)
		}
		r.lists[s] = append(l, o)
		return "list " + o.Name
	case op == 4 && len(l) > 0:
		i := rnd.IntN(len(l))
		r.lists[s] = slices.Delete(slices.Clone(l), i, i+1)
		return "unlist slot " + fmt.Sprint(i)
	case op == 5 && len(l) > 1:
		i, j := rnd.IntN(len(l)), rnd.IntN(len(l))
		l[i], l[j] = l[j], l[i]
		return "swap"
	case op == 6:
		o := r.ss[rnd.IntN(len(r.ss))]
		r.lists[s] = slices.Clone(r.lists[o])
		return "share a list"
	case op == 7:
		o := pick()
		if _, bad := o.InputSchema.(map[string]any)["bad"]; bad {
			o.InputSchema = map[string]any{"type": "object"}
			return "mend " + o.Name
		}
		o.InputSchema = map[string]any{"type": "object", "bad": math.NaN()}
		return "break " + o.Name
	case op == 8:
		o := pick()
		d := digestOr(o)
		if d == "" {
			return "nothing"
		}
		if err := r.g.AcceptDefinition(o.Name, d); err != nil {
			t.Fatal(err)
		}
		m.acc[normalize.Name(o.Name)] = d
		return "accept " + o.Name + " " + d[:12]
	case op == 9 && len(l) > 0:
		r.page = rnd.IntN(4)
		return "pages of " + fmt.Sprint(r.page)
	}
	return "nothing"
}

// TestIndexAgreesWithModel: over random sequences of listing changes (in
// place: descriptions, names, schemas that cannot be digested; new
// pointers, reorders, duplicates, per-session lists, pages, accepted
// digests) and calls on three sessions, every call runs exactly when the
// model says: listed to its session, no colliding spelling, its
// definition the pinned one (pinned at first listing on any session).
func TestIndexAgreesWithModel(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 7))
			r := newIdxRig(t, 3)
			objs := []*mcp.Tool{idxTool("alpha", "reads"), idxTool("beta", "reads"), idxTool("gamma", "reads")}
			for i := range r.ss {
				r.lists[r.ss[i]] = slices.Clone(objs)
			}
			m := &idxModel{pins: map[string]map[string]bool{}, acc: map[string]string{}, lastSess: -1}
			var trail []string
			for step := range 400 {
				if rnd.IntN(2) == 0 {
					trail = append(trail, m.mutate(t, rnd, r, &objs))
					continue
				}
				s, n := rnd.IntN(len(r.ss)), idxNames[rnd.IntN(len(idxNames))]
				trail = append(trail, fmt.Sprintf("call %s on %d", n, s))
				m.call(t, r, s, n, fmt.Sprintf("seed %d step %d (last: %v)", seed, step, trail[max(0, len(trail)-8):]))
			}
		})
	}
}
