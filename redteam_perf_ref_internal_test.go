package gatehouse

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The lazy handler context against the eager one it replaced, over random
// scripts of what can happen to a call (asking for Done, deriving a child
// directly, under a value, under WithoutCancel, with a deadline of its
// own, or from another child, the client cancelling with or without a cause or reaching its own
// deadline, the timeout, the handler returning) in every order: after each
// step Err, Cause and whether Done is closed are the reference's, for the
// context and for its children. The reference is context.WithDeadlineCause
// at the handler's deadline with errHandlerTimeout, cancelled when the
// handler returns: what a runtime timer per call gave (its children report
// DeadlineExceeded too). Time is synctest's, so a timeout is the watchdog's
// own, at its tick, as in production.
func TestRedTeamPerf_WatchedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for run := range 20000 {
		seed := rng.Uint64()
		synctest.Test(t, func(t *testing.T) { watchedScript(t, run, rand.New(rand.NewPCG(seed, 23))) })
	}
}

// scriptRun is one script's contexts: the handler's (h) and the
// reference, each with its derived contexts and AfterFunc flags.
type scriptRun struct {
	w               *watchdog
	h               *watched
	ref             context.Context
	refCancel       context.CancelFunc
	parent          context.Context
	cancelBase      context.CancelCauseFunc
	timed, stopped  bool
	kids, refKids   []context.Context
	ran, refRan     []*atomic.Bool // AfterFunc functions that have run
	stops, refStops []func() bool
	cancels         []context.CancelFunc
}

// watchedScript runs one random script (see
// TestRedTeamPerf_WatchedMatchesReference) in a synctest bubble.
func watchedScript(t *testing.T, run int, rng *rand.Rand) {
	const timeout = 32 * time.Millisecond
	s := &scriptRun{w: newWatchdog(timeout)}
	base, cancelBase := context.WithCancelCause(context.Background())
	s.parent, s.cancelBase = base, cancelBase
	s.timed = rng.IntN(4) == 0 // the client's own deadline ends it, before or after the handler's
	if s.timed {
		var cancel context.CancelFunc
		s.parent, cancel = context.WithTimeout(base, []time.Duration{20 * time.Millisecond, 50 * time.Millisecond}[rng.IntN(2)])
		s.cancels = append(s.cancels, cancel)
	}
	s.h = s.w.watch(s.parent, nil)
	s.ref, s.refCancel = context.WithDeadlineCause(s.parent, s.h.deadline, errHandlerTimeout)
	defer func() { // also when compare fails: the bubble must end
		if !s.stopped {
			s.w.stop(s.h)
		}
		s.refCancel()
		cancelBase(nil)
		for _, c := range s.cancels {
			c()
		}
		time.Sleep(2 * s.w.tick) // the watchdog's goroutine ends at its next tick
		synctest.Wait()
	}()
	var script []string
	for range 2 + rng.IntN(9) {
		op := s.step(rng)
		if op == "" {
			continue
		}
		synctest.Wait() // every timer's cancellation and AfterFunc has run
		script = append(script, op)
		if rng.IntN(3) == 0 { // looking makes the lazy context: not after every step
			script = append(script, "compare")
			s.compare(t, run, script)
		}
	}
	s.compare(t, run, script)
}

// step does one random thing to both contexts; "" when it did nothing.
func (s *scriptRun) step(rng *rand.Rand) string {
	switch rng.IntN(13) {
	case 9: // a child with a deadline of its own, before or past the handler's
		d := []time.Duration{10 * time.Millisecond, time.Hour}[rng.IntN(2)]
		k, cancel := context.WithTimeout(s.h, d)
		rk, rcancel := context.WithTimeout(s.ref, d)
		s.kids, s.refKids, s.cancels = append(s.kids, k), append(s.refKids, rk), append(s.cancels, cancel, rcancel)
		return "child with a deadline"
	case 10: // a child under WithoutCancel: never ends
		k, cancel := context.WithCancel(context.WithoutCancel(s.h))
		rk, rcancel := context.WithCancel(context.WithoutCancel(s.ref))
		s.kids, s.refKids, s.cancels = append(s.kids, k), append(s.refKids, rk), append(s.cancels, cancel, rcancel)
		return "child under WithoutCancel"
	case 11: // a grandchild
		if len(s.kids) == 0 {
			return ""
		}
		i := rng.IntN(len(s.kids))
		k, cancel := context.WithCancel(s.kids[i])
		rk, rcancel := context.WithCancel(s.refKids[i])
		s.kids, s.refKids, s.cancels = append(s.kids, k), append(s.refKids, rk), append(s.cancels, cancel, rcancel)
		return "grandchild"
	case 12: // the client ends, and the handler's context is looked at at
		// once, before the context package's goroutines (if any) have run
		if s.timed {
			return ""
		}
		s.cancelBase(errors.New("the client's cause"))
		if err := sameContext(s.h, s.ref); err != nil {
			return "mismatch: at once after the client's end: " + err.Error()
		}
		return "client ends, looked at at once"
	case 0:
		s.h.Done()
		return "done"
	case 1, 2: // a direct child (AfterFunc) or one under a value (a goroutine)
		h, ref, op := context.Context(s.h), s.ref, "child"
		if rng.IntN(2) == 0 {
			type k struct{}
			h, ref, op = context.WithValue(h, k{}, 1), context.WithValue(ref, k{}, 1), "child under a value"
		}
		k, cancel := context.WithCancel(h)
		rk, rcancel := context.WithCancel(ref)
		s.kids, s.refKids, s.cancels = append(s.kids, k), append(s.refKids, rk), append(s.cancels, cancel, rcancel)
		return op
	case 3:
		ran, refRan := new(atomic.Bool), new(atomic.Bool)
		s.ran, s.refRan = append(s.ran, ran), append(s.refRan, refRan)
		s.stops = append(s.stops, context.AfterFunc(s.h, func() { ran.Store(true) }))
		s.refStops = append(s.refStops, context.AfterFunc(s.ref, func() { refRan.Store(true) }))
		return "afterfunc"
	case 4:
		if len(s.stops) == 0 {
			return ""
		}
		i := rng.IntN(len(s.stops))
		if got, want := s.stops[i](), s.refStops[i](); got != want {
			return fmt.Sprintf("stop afterfunc %d: stopped %v, reference %v", i, got, want)
		}
		return "stop afterfunc"
	case 5:
		switch {
		case s.timed:
			<-s.parent.Done()
			return "client ends at its deadline"
		case rng.IntN(2) == 0:
			s.cancelBase(errors.New("the client's cause"))
			return "client ends with a cause"
		}
		s.cancelBase(nil)
		return "client ends"
	case 6:
		time.Sleep(time.Until(s.h.deadline) + s.w.tick) // the watchdog's tick after the deadline
		return "timeout"
	case 7:
		if s.stopped {
			return ""
		}
		s.stopped = true
		s.w.stop(s.h)
		s.refCancel()
		return "return"
	}
	_ = s.h.Err()
	_ = context.Cause(s.h)
	return "read"
}

func (s *scriptRun) compare(t *testing.T, run int, script []string) {
	t.Helper()
	for _, op := range script {
		if strings.HasPrefix(op, "stop afterfunc ") || strings.HasPrefix(op, "mismatch: ") {
			t.Fatalf("run %d, after %v", run, script)
		}
	}
	compare(t, run, script, s.h, s.ref, s.kids, s.refKids)
	for i := range s.ran {
		if got, want := s.ran[i].Load(), s.refRan[i].Load(); got != want {
			t.Fatalf("run %d, after %v: AfterFunc %d ran %v, reference %v", run, script, i, got, want)
		}
	}
}

func compare(t *testing.T, run int, script []string, h, ref context.Context, kids, refKids []context.Context) {
	t.Helper()
	if err := sameContext(h, ref); err != nil {
		t.Fatalf("run %d, after %v: %v", run, script, err)
	}
	for i := range kids {
		if err := sameContext(kids[i], refKids[i]); err != nil {
			t.Fatalf("run %d, after %v: child %d: %v", run, script, i, err)
		}
	}
}

func sameContext(got, want context.Context) error {
	g, gok := got.Deadline()
	if w, wok := want.Deadline(); gok != wok || !g.Equal(w) {
		return fmt.Errorf("Deadline %v %v, want %v %v", g, gok, w, wok)
	}
	if g, w := got.Err(), want.Err(); g != w {
		return errors.New("Err " + errString(g) + ", want " + errString(w))
	}
	if g, w := context.Cause(got), context.Cause(want); g != w {
		return errors.New("Cause " + errString(g) + ", want " + errString(w))
	}
	if want.Err() != nil { // Done of a running context is not compared: asking makes it
		select {
		case <-got.Done():
		default:
			return errors.New("Done open after the end")
		}
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
