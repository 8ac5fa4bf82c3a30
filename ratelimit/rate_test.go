package ratelimit_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func TestParseRateAliases(t *testing.T) {
	// Every period spelling of AIP §3.5.2.
	for _, tc := range []struct {
		in   string
		want ratelimit.Rate
	}{
		{"10/second", ratelimit.Rate{N: 10, Per: time.Second}},
		{"10/sec", ratelimit.Rate{N: 10, Per: time.Second}},
		{"10/s", ratelimit.Rate{N: 10, Per: time.Second}},
		{"5/minute", ratelimit.Rate{N: 5, Per: time.Minute}},
		{"5/min", ratelimit.Rate{N: 5, Per: time.Minute}},
		{"5/m", ratelimit.Rate{N: 5, Per: time.Minute}},
		{"100/hour", ratelimit.Rate{N: 100, Per: time.Hour}},
		{"100/hr", ratelimit.Rate{N: 100, Per: time.Hour}},
		{"100/h", ratelimit.Rate{N: 100, Per: time.Hour}},
		{"1/s", ratelimit.Rate{N: 1, Per: time.Second}},
		{" 7/min\t", ratelimit.Rate{N: 7, Per: time.Minute}},
		{"007/h", ratelimit.Rate{N: 7, Per: time.Hour}},
	} {
		got, err := ratelimit.ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if !got.Valid() || got.Interval() != tc.want.Per/time.Duration(tc.want.N) {
			t.Errorf("ParseRate(%q): Valid %v, Interval %v", tc.in, got.Valid(), got.Interval())
		}
		// String is canonical and parses back to the same rate.
		again, err := ratelimit.ParseRate(got.String())
		if err != nil || again != got {
			t.Errorf("ParseRate(%q.String() = %q) = %+v, %v", tc.in, got.String(), again, err)
		}
	}
}

func TestParseRateRejects(t *testing.T) {
	for _, in := range []string{
		"", " ", "/", "10", "10/", "/minute",
		"0/minute", "-1/s", "+1/s", "1.5/s", "1e3/s", "0x10/s",
		"10/fortnight", "10/day", "10/Minute", "10/MIN", "10/ minute", "10 /minute",
		"10 per minute", "10/minute/s", "10//minute", "ten/minute",
		"99999999999999999999/s", // overflows int
		strings.Repeat("1", 70) + "/s",
		"10/" + strings.Repeat("m", 100),
		"１０/minute", // full-width digits
	} {
		got, err := ratelimit.ParseRate(in)
		if !errors.Is(err, ratelimit.ErrInvalidRate) {
			t.Errorf("ParseRate(%q) = %+v, %v; want ErrInvalidRate", in, got, err)
			continue
		}
		if got != (ratelimit.Rate{}) || got.Valid() {
			t.Errorf("ParseRate(%q) returned %+v with its error, want the zero Rate", in, got)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "ratelimit: ") || len(msg) > 300 {
			t.Errorf("ParseRate(%q) error %q: want a bounded message prefixed ratelimit:", in, msg)
		}
	}
}

func TestParseRateOverlongTextIsNotEchoed(t *testing.T) {
	in := strings.Repeat("A", 10_000) + "/s"
	_, err := ratelimit.ParseRate(in)
	if !errors.Is(err, ratelimit.ErrInvalidRate) || strings.Contains(err.Error(), "AAAA") {
		t.Fatalf("ParseRate(10 KB) error %v: want ErrInvalidRate without the text", err)
	}
}

func TestMustParseRatePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustParseRate(\"0/s\") did not panic")
		}
	}()
	ratelimit.MustParseRate("0/s")
}

func TestRateZeroValue(t *testing.T) {
	var r ratelimit.Rate
	if r.Valid() || r.Interval() != 0 {
		t.Fatalf("zero Rate: Valid %v, Interval %v; want false, 0", r.Valid(), r.Interval())
	}
	if _, err := ratelimit.NewLimiter(r, nil); !errors.Is(err, ratelimit.ErrInvalidRate) {
		t.Fatalf("NewLimiter(zero Rate) = %v, want ErrInvalidRate", err)
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10/minute", "0/s", "1/h", "", "10 per minute"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ratelimit.ParseRate(s)
		if err != nil {
			if !errors.Is(err, ratelimit.ErrInvalidRate) || r != (ratelimit.Rate{}) {
				t.Fatalf("ParseRate(%q) = %+v, %v", s, r, err)
			}
			return
		}
		// Accepted rates are valid and round-trip through String.
		if !r.Valid() {
			t.Fatalf("ParseRate(%q) accepted invalid %+v", s, r)
		}
		if again, err := ratelimit.ParseRate(r.String()); err != nil || again != r {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}
