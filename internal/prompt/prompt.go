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
//     stated, so a long "body" cannot push "to" out of view;
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
	names := make([]string, len(ms))
	fixed := 0
	for i, m := range ms {
		names[i] = escape(string(m.Name), -1)
		fixed += len("  : \n") + len(names[i])
	}
	per := (maxAll - fixed) / len(ms)
	if per < minValue {
		return "", fmt.Errorf("%w: %d arguments with %d bytes of names, at most %d bytes to show", ErrTooLong, len(ms), fixed, maxAll)
	}
	per = min(per, maxVal)
	var b strings.Builder
	for i, m := range ms {
		b.WriteString("  ")
		b.WriteString(names[i])
		b.WriteString(": ")
		b.WriteString(cutValue(string(out[m.Start+m.Value:m.End]), per))
		b.WriteByte('\n')
	}
	return b.String(), nil
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
