package gatehouse

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// rt3Answer is what bounded does with r.result: the first answer, unless it is
// the timeout and the handler's is already there.
func rt3Answer(r *watched) (handled, bool) {
	select {
	case h := <-r.result:
		if !h.timeout {
			return h, true
		}
		select {
		case h2 := <-r.result:
			return h2, true
		default:
		}
		return h, true
	case <-time.After(10 * time.Second):
		return handled{}, false
	}
}

// The handler's return (its answer, then stop) races the watchdog's
// expire, in both orders: the caller gets one answer, never hangs; a
// timeout answer goes with a handler context that reports the timeout (the
// watchdog ends the context before it answers); a handler that returned
// first keeps Canceled (end(true) after stop changes nothing), and Done is
// closed with Err non-nil.
func TestRedTeam3_StopRacesExpire(t *testing.T) {
	w := newWatchdog(time.Hour)
	n := 3000
	if testing.Short() {
		n = 300
	}
	var timeouts, answers int
	for i := range n {
		h := w.watch(context.Background(), nil)
		if i%2 == 0 {
			h.Done()
		}
		var seen, returned error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // the handler
			defer wg.Done()
			if i%3 == 0 {
				runtime.Gosched()
			}
			seen = h.Err()
			h.result <- handled{}
			w.stop(h)
			returned = h.Err()
		}()
		go func() { // the watchdog, past the timeout
			defer wg.Done()
			if i%3 == 1 {
				runtime.Gosched()
			}
			w.expire(time.Now().Add(2 * time.Hour))
		}()
		got, ok := rt3Answer(h)
		if !ok {
			t.Fatal("the caller got no answer")
		}
		wg.Wait()
		err := h.Err()
		select {
		case <-h.Done():
		default:
			t.Fatalf("iteration %d: Err %v with Done open", i, err)
		}
		if seen != nil && seen != err || returned != err {
			t.Fatalf("iteration %d: Err was %v, %v once returned, then %v", i, seen, returned, err)
		}
		if got.timeout {
			timeouts++
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(context.Cause(h), errHandlerTimeout) {
				t.Fatalf("iteration %d: a timeout answer, the handler's context reports %v (cause %v)", i, err, context.Cause(h))
			}
		} else {
			answers++
		}
		if len(h.result) > 1 {
			t.Fatalf("iteration %d: %d answers left", i, len(h.result))
		}
	}
	t.Logf("%d timeouts, %d handler answers", timeouts, answers)
	waitIdle(t, w)
}

// A handler watched while the watchdog's last round ends an overdue
// handler's context outside its lock (the loop has said it stops) is still
// abandoned on time, by a new loop, and the watchdog's goroutines all end.
func TestRedTeam3_WatchedWhileTheLoopStops(t *testing.T) {
	base := runtime.NumGoroutine()
	w := newWatchdog(time.Millisecond)
	h := w.watch(context.Background(), nil)
	inside, release := make(chan struct{}), make(chan struct{})
	h.AfterFunc(func() { close(inside); <-release })
	<-inside
	w.mu.Lock()
	ticking, n := w.ticking, w.n
	w.mu.Unlock()
	if ticking || n != 0 {
		t.Fatalf("ticking %v with %d watched, want a loop that stops", ticking, n)
	}
	other := w.watch(context.Background(), nil)
	select {
	case <-other.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a handler watched as the loop stopped was never abandoned")
	}
	if got := <-other.result; !got.timeout {
		t.Fatal("no timeout answer")
	}
	close(release)
	if got := <-h.result; !got.timeout {
		t.Fatal("no timeout answer")
	}
	w.stop(h)
	w.stop(other)
	waitIdle(t, w)
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
	}
}
