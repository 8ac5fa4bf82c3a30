// Package jsonnum holds the check that a JSON number survives RFC 8785
// canonicalization (IEEE-754 doubles) unchanged, shared by the packages that
// hash arguments (consent proofs; approval and audit should use it too).
package jsonnum

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ExactDouble reports whether the JSON number text n denotes exactly the
// value of its nearest float64, so JCS hashing cannot merge it with another
// number. Numbers with at most 15 significant digits and no exponent are
// always exact; others are compared with big.Rat, with the exponent bounded.
func ExactDouble(n string) bool {
	digits := 0
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == 'e' || c == 'E':
			digits = 99
		}
	}
	if digits <= 15 {
		return true
	}
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		if err != nil || e > 400 || e < -400 {
			return false
		}
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	var lit, got big.Rat
	if _, ok := lit.SetString(n); !ok {
		return false
	}
	if _, ok := got.SetString(strconv.FormatFloat(f, 'g', -1, 64)); !ok {
		return false
	}
	return lit.Cmp(&got) == 0
}
