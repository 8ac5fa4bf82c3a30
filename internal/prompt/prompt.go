// Package prompt is gatehouse's one renderer of the arguments a human is
// asked to approve, used by every place that asks: the consent channels
// (terminal, webhook, Telegram, MCP elicitation, through consent.Summary),
// the passkey ceremony page (approval.DefaultDescribe) and the root
// package's AddTool question.
//
// # Security
//
// The arguments come from the agent the approval guards against, so the
// text must not let it hide or fake anything:
//
//   - the arguments are shown in gatehouse's canonical form (internal/jcs,
//     strict rule: objects with member names equal under case folding are
//     refused, so what is shown is what every reader reads), one top-level
//     argument per line in canonical order;
//   - every argument name is always shown, whatever the values' lengths:
//     values are cut one by one, each with the number of hidden bytes
//     stated, so a long "body" cannot push "to" out of view; an object or
//     array too long to show whole is shown member by member under its
//     name, so the names inside it are shown too (fault: a long "body"
//     hid "to" one level down, {"email":{"body":...,"to":...}});
//   - a value that refers to a vault secret ("{{vault:NAME}}") is never
//     cut: the human sees where the secret would go;
//   - runes that render as nothing or reorder their neighbours (controls,
//     bidi overrides, zero-width characters, variation selectors, line
//     separators) are shown as \uXXXX escapes, in names and values alike;
//   - when the names alone do not fit the budget, Render refuses
//     ([ErrTooLong]): the caller denies rather than asks about a call it
//     cannot show.
//
// # Concurrency
//
// Render is safe for concurrent use.
package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

// Defaults of [Options].
const (
	DefaultMaxBytes      = 4096
	DefaultMaxValueBytes = 512
	// minValue is the least of each value shown before Render refuses.
	minValue = 24
)

// ErrTooLong: the arguments have too many or too long names to show each
// with part of its value within the budget. Deny the call.
var ErrTooLong = errors.New("prompt: the arguments cannot be shown in full names within the prompt's size; refusing to ask")

// ErrInvalid: the arguments have no canonical form (see internal/jcs) or are
// not a JSON object. Deny the call.
var ErrInvalid = errors.New("prompt: the arguments cannot be shown")

// Options bound the rendered text. nil means defaults.
type Options struct {
	// MaxBytes bounds the argument lines (default 4096).
	MaxBytes int
	// MaxValueBytes bounds one shown value (default 512).
	MaxValueBytes int
}

// Render returns the lines showing the arguments args (a JSON object as
// received, or empty for none), one per top-level argument:
//
//	name: value
//	body: "Hello ..." … (1234 more bytes not shown)
//
// A value too long to show whole that is an object or an array is shown
// member by member (element by element) on lines of its own, indented under
// its name, recursively, so the names inside it are shown too: a long
// "body" cannot push "to" out of view one level down either.
//
//	email: (object, 2 members)
//	  body: "Hello ..." … (1234 more bytes not shown)
//	  to: "attacker@evil.test"
//
// Errors wrap [ErrInvalid] or [ErrTooLong]; they never quote values.
func Render(args []byte, o *Options) (string, error) {
	maxAll, maxVal := DefaultMaxBytes, DefaultMaxValueBytes
	if o != nil && o.MaxBytes > 0 {
		maxAll = o.MaxBytes
	}
	if o != nil && o.MaxValueBytes > 0 {
		maxVal = o.MaxValueBytes
	}
	if len(strings.TrimSpace(string(args))) == 0 {
		args = []byte("{}")
	}
	c := jcs.NewCanonicalizer(jcs.Strict)
	out, err := c.Transform(args)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrInvalid, strings.TrimPrefix(err.Error(), jcs.ErrInvalid.Error()+": "))
	}
	if out[0] != '{' {
		return "", fmt.Errorf("%w: the arguments are not a JSON object", ErrInvalid)
	}
	ms := c.Members()
	if len(ms) == 0 {
		return "  (no arguments)\n", nil
	}
	ls := make([]line, len(ms))
	for i, m := range ms {
		ls[i] = line{depth: 1, name: escape(string(m.Name), -1), value: string(out[m.Start+m.Value : m.End])}
	}
	ls, per, err := layout(ls, maxAll, maxVal)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(strings.Repeat("  ", l.depth))
		b.WriteString(l.name)
		b.WriteString(": ")
		switch {
		case l.header != "":
			b.WriteString(l.header)
		case whole(l.value):
			b.WriteString(escape(l.value, -1))
		default:
			b.WriteString(cutValue(l.value, per))
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// line is one line of the rendering: a name at an indentation depth with
// its canonical value, or with the header of a value shown member by member
// on the lines after it.
type line struct {
	depth  int
	name   string // escaped
	value  string // canonical JSON; empty for a header
	header string // "(object, 2 members)"
}

// layout shares maxAll bytes among the values of ls, at most maxVal each,
// showing every value too long for its share that is an object or array
// member by member instead (recursively), and returns the lines and each
// value's share. When the names alone leave less than minValue per value,
// it refuses (ErrTooLong).
func layout(ls []line, maxAll, maxVal int) ([]line, int, error) {
	for {
		fixed, leaves := 0, 0
		for _, l := range ls {
			fixed += 2*l.depth + len(l.name) + len(": \n") + len(l.header)
			switch {
			case l.header != "":
			case whole(l.value):
				fixed += len(escape(l.value, maxAll+1))
			default:
				leaves++
			}
		}
		if fixed > maxAll {
			return nil, 0, fmt.Errorf("%w: %d bytes of names and of values holding vault secret references, at most %d bytes to show", ErrTooLong, fixed, maxAll)
		}
		if leaves == 0 {
			return ls, 0, nil
		}
		per := (maxAll - fixed) / leaves
		if per < minValue {
			return nil, 0, fmt.Errorf("%w: %d values under %d bytes of names, at most %d bytes to show", ErrTooLong, leaves, fixed, maxAll)
		}
		per = min(per, maxVal)
		next, expanded := ls[:0:0], false
		for _, l := range ls {
			if l.header == "" && (len(escape(l.value, per+1)) > per || whole(l.value)) {
				if sub, ok := expand(l); ok {
					next, expanded = append(next, sub...), true
					continue
				}
			}
			next = append(next, l)
		}
		if !expanded {
			return ls, per, nil
		}
		ls = next
	}
}

// whole reports whether v, a canonical JSON value, refers to a vault secret
// ("{{vault:NAME}}", internal/secretref): such a value is never cut, so the
// human sees where the secret would go (fault: a long "proxy" value hid the
// attacker's URL its reference was in behind a byte count, while the
// prompt's "secrets:" line named the secret alone). An object or array
// holding one is shown member by member; a string is shown whole, or the
// ask is refused (ErrTooLong).
func whole(v string) bool { return strings.Contains(v, secretRefStart) }

// secretRefStart begins every vault secret reference (internal/secretref).
const secretRefStart = "{{vault:"

// expand returns the lines showing l's value member by member (an object)
// or element by element (an array, named [0], [1], ...) under a header
// line; ok is false for any other value or an empty one.
func expand(l line) ([]line, bool) {
	v := l.value
	if len(v) < 3 || (v[0] != '{' && v[0] != '[') {
		return nil, false
	}
	var subs []line
	if v[0] == '{' {
		c := jcs.NewCanonicalizer(jcs.Strict)
		out, err := c.Transform([]byte(v))
		if err != nil {
			return nil, false
		}
		for _, m := range c.Members() {
			subs = append(subs, line{depth: l.depth + 1, name: escape(string(m.Name), -1), value: string(out[m.Start+m.Value : m.End])})
		}
		l.header = "(object, " + count(len(subs), "member") + ")"
	} else {
		var elems []json.RawMessage
		if json.Unmarshal([]byte(v), &elems) != nil {
			return nil, false
		}
		for i, e := range elems {
			subs = append(subs, line{depth: l.depth + 1, name: "[" + strconv.Itoa(i) + "]", value: string(e)})
		}
		l.header = "(array, " + count(len(subs), "element") + ")"
	}
	l.value = ""
	return append([]line{l}, subs...), true
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// cutValue escapes v and cuts it to at most budget bytes of shown text
// (plus the note), at a rune boundary, stating how many bytes of v are not
// shown.
func cutValue(v string, budget int) string {
	if e := escape(v, -1); len(e) <= budget {
		return e
	}
	note := func(hidden int) string { return " … (" + strconv.Itoa(hidden) + " more bytes not shown)" }
	room := budget - len(note(len(v)))
	if room < 1 {
		room = 1
	}
	shown := escape(v, room)
	return shown + note(len(v)-consumed(v, room))
}

// escape writes s with every invisible rune as a \uXXXX escape (a
// surrogate pair beyond the BMP), stopping before the output would exceed
// limit bytes (limit < 0: no limit).
func escape(s string, limit int) string {
	var b strings.Builder
	for _, r := range s {
		piece := string(r)
		if r == utf8.RuneError || runes.Invisible(r) {
			piece = escapeRune(r)
		}
		if limit >= 0 && b.Len()+len(piece) > limit {
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}

// consumed returns how many bytes of s escape(s, limit) shows.
func consumed(s string, limit int) int {
	n, out := 0, 0
	for i, r := range s {
		l := len(string(r))
		if r == utf8.RuneError || runes.Invisible(r) {
			l = len(escapeRune(r))
		}
		if out+l > limit {
			return i
		}
		out += l
		n = i + len(string(r))
	}
	return n
}

func escapeRune(r rune) string {
	if r > 0xffff {
		r -= 0x10000
		return fmt.Sprintf(`\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
	}
	return fmt.Sprintf(`\u%04x`, r)
}
