package ratelimit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is a number of events allowed per period, written "N/period" (AIP §3.5.2).
// The zero Rate is invalid; use [ParseRate] to build one from text.
type Rate struct {
	N   int           // events per period, >= 1
	Per time.Duration // the period: one second, minute or hour
}

// ErrInvalidRate is wrapped by every error [ParseRate] returns.
var ErrInvalidRate = errors.New("ratelimit: invalid rate")

// maxRateText bounds the text ParseRate looks at, so an attacker-sized
// string never ends up copied into an error message.
const maxRateText = 64

// periods maps every period spelling of AIP §3.5.2 to its duration.
var periods = map[string]time.Duration{
	"second": time.Second, "sec": time.Second, "s": time.Second,
	"minute": time.Minute, "min": time.Minute, "m": time.Minute,
	"hour": time.Hour, "hr": time.Hour, "h": time.Hour,
}

// ParseRate parses "N/period" where N is a positive decimal integer and period
// is one of second|sec|s, minute|min|m, hour|hr|h (AIP §3.5.2). Surrounding
// white space is ignored; nothing else is accepted. The error quotes the
// offending text and wraps [ErrInvalidRate].
func ParseRate(s string) (Rate, error) {
	if len(s) > maxRateText {
		return Rate{}, fmt.Errorf("%w: %d bytes is longer than the %d allowed", ErrInvalidRate, len(s), maxRateText)
	}
	bad := func(why string) (Rate, error) {
		return Rate{}, fmt.Errorf("%w %q: %s (want N/period, period one of second|sec|s, minute|min|m, hour|hr|h)", ErrInvalidRate, s, why)
	}
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return bad("missing '/'")
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return bad("count is not a positive integer")
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return bad("count is not a positive integer")
	}
	per, ok := periods[unit]
	if !ok {
		return bad("unknown period")
	}
	return Rate{N: n, Per: per}, nil
}

// MustParseRate is like [ParseRate] but panics on error. Use it only with
// constant input, as in package-level variables and tests.
func MustParseRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// String returns the canonical text of r, e.g. "10/minute".
func (r Rate) String() string {
	switch r.Per {
	case time.Second:
		return strconv.Itoa(r.N) + "/second"
	case time.Minute:
		return strconv.Itoa(r.N) + "/minute"
	case time.Hour:
		return strconv.Itoa(r.N) + "/hour"
	}
	return strconv.Itoa(r.N) + "/" + r.Per.String()
}

// Valid reports whether r allows at least one event in a positive period.
func (r Rate) Valid() bool { return r.N >= 1 && r.Per > 0 }

// Interval is the steady-state time between two events: Per / N.
func (r Rate) Interval() time.Duration {
	if !r.Valid() {
		return 0
	}
	return r.Per / time.Duration(r.N)
}
