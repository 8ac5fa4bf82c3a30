package jcs

import (
	"math"
	"math/big"
	"strconv"
)

// MaxLen is the longest number text ExactDouble accepts. The decimal
// expansion of any double needs at most 767 significant digits, and the cost
// of the exact comparison grows faster than linearly with the length, so
// longer texts are refused without looking further.
const MaxLen = 1024

// maxExp bounds the exponent ExactDouble evaluates: 10^±400 is beyond the
// double range (±1.8e308, 4.9e-324) whatever the mantissa of a MaxLen text.
const maxExp = 400 + MaxLen

// ExactDouble reports whether the JSON number text n is valid (RFC 8259
// grammar) and denotes exactly the value of the float64 that RFC 8785
// serializes for it, so JCS hashing cannot merge it with another number: two
// different texts accepted by ExactDouble hash alike only when they denote
// the same value. Texts with at most 15 digits and no exponent are always
// exact; others are compared with big.Rat, with the length (MaxLen) and the
// exponent bounded so the cost stays small.
func ExactDouble(n string) bool {
	digits, expAt, ok := scan(n)
	if !ok || len(n) > MaxLen {
		return false
	}
	if expAt < 0 && digits <= 15 {
		return true
	}
	if expAt >= 0 {
		e, err := strconv.Atoi(n[expAt+1:])
		if err != nil || e > maxExp || e < -maxExp {
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

// scan checks n against the JSON number grammar
//
//	[-] (0 | [1-9][0-9]*) [. [0-9]+] [(e|E) [+|-] [0-9]+]
//
// and returns the number of mantissa digits (leading zeros included) and the
// index of the exponent marker, or -1.
func scan(n string) (digits, expAt int, ok bool) {
	i := 0
	if i < len(n) && n[i] == '-' {
		i++
	}
	end := skipDigits(n, i)
	if end == i || (n[i] == '0' && end-i > 1) {
		return 0, -1, false
	}
	digits, i = end-i, end
	if i < len(n) && n[i] == '.' {
		if end = skipDigits(n, i+1); end == i+1 {
			return 0, -1, false
		}
		digits, i = digits+end-i-1, end
	}
	expAt = -1
	if i < len(n) && (n[i] == 'e' || n[i] == 'E') {
		expAt = i
		i++
		if i < len(n) && (n[i] == '+' || n[i] == '-') {
			i++
		}
		if end = skipDigits(n, i); end == i {
			return 0, -1, false
		}
		i = end
	}
	return digits, expAt, i == len(n)
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(n string, i int) int {
	for i < len(n) && n[i] >= '0' && n[i] <= '9' {
		i++
	}
	return i
}
