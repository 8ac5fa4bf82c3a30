package gatehouse

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Once the client's context has ended, Err of the handler's context is
// non-nil only when its Done is closed, as for a context.WithCancel child
// (whose Err waits for Done since Go 1.23): a handler that saw Err
// non-nil and then selects on a Done it took earlier must not block.
func TestRedTeamCtx_ErrOnlyOnceDoneClosedOnClientCancel(t *testing.T) {
	for i := range 200 {
		parent, cancel := context.WithCancel(context.Background())
		h := &watched{parent: parent, deadline: time.Now().Add(time.Hour), result: make(chan handled, 2)}
		d := h.Done()
		cancel()
		if err := h.Err(); err != nil {
			select {
			case <-d:
			default:
				t.Fatalf("round %d: Err %v while Done is open", i, err)
			}
		}
		h.end(false)
	}
}

// While the watchdog or the handler's return ends the context, a reader
// that sees Err non-nil finds Done (taken before) closed. Run with -race.
func TestRedTeamCtx_ErrOnlyOnceDoneClosedWhileEnding(t *testing.T) {
	for i := range 3000 {
		h := &watched{parent: context.Background(), deadline: time.Now().Add(time.Hour), result: make(chan handled, 2)}
		d := h.Done()
		bad := make(chan error, 1)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			close(start)
			for {
				if err := h.Err(); err != nil {
					select {
					case <-d:
					default:
						bad <- err
					}
					return
				}
			}
		})
		<-start
		h.end(i%2 == 0)
		wg.Wait()
		select {
		case err := <-bad:
			t.Fatalf("round %d: Err %v while Done is open", i, err)
		default:
		}
	}
}

// Once Done is closed, Err and Cause already show the end: the timeout's
// (DeadlineExceeded, errHandlerTimeout), the return's (Canceled) or the
// client's (its error and cause). Run with -race.
func TestRedTeamCtx_CauseOnceDoneClosed(t *testing.T) {
	clientCause := errors.New("client gone")
	for i := range 3000 {
		parent, cancel := context.WithCancelCause(context.Background())
		h := &watched{parent: parent, deadline: time.Now().Add(time.Hour), result: make(chan handled, 2)}
		d := h.Done()
		got := make(chan [2]error, 1)
		go func() {
			<-d
			got <- [2]error{h.Err(), context.Cause(h)}
		}()
		var want [2]error
		switch i % 3 {
		case 0:
			h.end(true)
			want = [2]error{context.DeadlineExceeded, errHandlerTimeout}
		case 1:
			h.end(false)
			want = [2]error{context.Canceled, context.Canceled}
		case 2:
			cancel(clientCause)
			want = [2]error{context.Canceled, clientCause}
		}
		select {
		case g := <-got:
			if g != want {
				t.Fatalf("round %d: once Done closed, Err %v and Cause %v, want %v and %v", i, g[0], g[1], want[0], want[1])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: Done was not closed", i)
		}
		h.end(false)
		cancel(nil)
	}
}

// Functions registered through the context's AfterFunc method (as the
// context package does, and as any caller may through an interface) that
// call back into the context while it ends: each sees it ended, a nested
// AfterFunc runs, stopping (itself or another) reports false once the
// end has begun, and nothing deadlocks. Run with -race.
func TestRedTeamCtx_AfterFuncCallsBack(t *testing.T) {
	for i := range 500 {
		parent, cancel := context.WithCancel(context.Background())
		w := newWatchdog(time.Millisecond)
		h := w.watch(parent, nil)
		const n = 8
		var ran, nested atomic.Int32
		errs := make(chan error, 4*n)
		stops := make([]func() bool, n)
		var mu sync.Mutex
		for k := range n {
			f := func() {
				ran.Add(1)
				if h.Err() == nil || context.Cause(h) == nil {
					errs <- errors.New("an AfterFunc ran before Err and Cause showed the end")
				}
				select {
				case <-h.Done():
				default:
					errs <- errors.New("an AfterFunc ran with Done open")
				}
				mu.Lock()
				other := stops[(k+1)%n]
				mu.Unlock()
				if other != nil && other() {
					errs <- errors.New("stopping another AfterFunc succeeded once the end had begun")
				}
				h.AfterFunc(func() { nested.Add(1) })
				if _, ok := callFrom(context.WithoutCancel(h)); !ok {
					errs <- errors.New("the call is lost once the context ended")
				}
			}
			stop := h.AfterFunc(f)
			mu.Lock()
			stops[k] = stop
			mu.Unlock()
		}
		switch i % 4 {
		case 0: // the watchdog's timeout
		case 1:
			w.stop(h)
		case 2:
			cancel()
		case 3:
			cancel()
			_ = h.Err() // runs them on this goroutine
		}
		deadline := time.Now().Add(10 * time.Second)
		for ran.Load() != n || nested.Load() != n {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d AfterFuncs ran, %d nested ones, want %d", i, ran.Load(), nested.Load(), n)
			}
			time.Sleep(100 * time.Microsecond)
		}
		select {
		case err := <-errs:
			t.Fatalf("round %d: %v", i, err)
		default:
		}
		for _, stop := range stops {
			if stop() {
				t.Fatalf("round %d: an AfterFunc that ran was stopped", i)
			}
		}
		w.stop(h)
		cancel()
		waitIdle(t, w)
	}
}

// Random trees of contexts derived from a handler's context (WithCancel,
// WithValue, WithTimeout and WithDeadline past the handler's deadline,
// WithoutCancel, AfterFunc), some derived while it ends: once it has
// ended every context below it ends with its Err and Cause, but those
// under WithoutCancel, which never end; every one finds the call; no
// goroutine is left once the handler returned and all is cancelled.
// Run with -race.
func TestRedTeamCtx_DeepTrees(t *testing.T) {
	base := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range 300 {
		parent, cancel := context.WithCancelCause(context.Background())
		w := newWatchdog(2 * time.Millisecond)
		c := &call{}
		h := w.watch(parent, c)
		type node struct {
			ctx      context.Context
			detached bool // under WithoutCancel
		}
		var (
			mu      sync.Mutex
			nodes   = []node{{ctx: h}}
			cancels []context.CancelFunc
			ran     atomic.Int32
			afters  int
		)
		grow := func(rng *rand.Rand, k int) {
			for range k {
				mu.Lock()
				p := nodes[rng.IntN(len(nodes))]
				mu.Unlock()
				var n node
				var cf context.CancelFunc
				switch rng.IntN(7) {
				case 0, 1:
					n.ctx, cf = context.WithCancel(p.ctx)
				case 2:
					type k struct{}
					n.ctx = context.WithValue(p.ctx, k{}, 1)
				case 3:
					n.ctx, cf = context.WithTimeout(p.ctx, time.Hour)
				case 4:
					n.ctx, cf = context.WithDeadlineCause(p.ctx, time.Now().Add(time.Hour), errors.New("not this one"))
				case 5:
					n.ctx = context.WithoutCancel(p.ctx)
					n.detached = true
				case 6:
					if p.detached { // never runs
						continue
					}
					mu.Lock()
					afters++
					mu.Unlock()
					context.AfterFunc(p.ctx, func() { ran.Add(1) })
					continue
				}
				n.detached = n.detached || p.detached
				mu.Lock()
				nodes = append(nodes, n)
				if cf != nil {
					cancels = append(cancels, cf)
				}
				mu.Unlock()
			}
		}
		grow(rng, 40)
		var wg sync.WaitGroup
		seed := rng.Uint64()
		wg.Go(func() { grow(rand.New(rand.NewPCG(seed, 1)), 40) }) // while it ends
		endHandler(i, w, h, cancel)
		wg.Wait()
		<-h.Done()
		wantErr, wantCause := h.Err(), context.Cause(h)
		for j, n := range nodes {
			if got, ok := callFrom(n.ctx); !ok || got != c {
				t.Fatalf("round %d: node %d does not find the call", i, j)
			}
			if n.detached {
				if n.ctx.Err() != nil || context.Cause(n.ctx) != nil {
					t.Fatalf("round %d: node %d under WithoutCancel ended: %v", i, j, n.ctx.Err())
				}
				continue
			}
			select {
			case <-n.ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: node %d did not end", i, j)
			}
			if n.ctx.Err() != wantErr || context.Cause(n.ctx) != wantCause {
				t.Fatalf("round %d: node %d ended with %v (%v), the handler's context with %v (%v)", i, j, n.ctx.Err(), context.Cause(n.ctx), wantErr, wantCause)
			}
		}
		for deadline := time.Now().Add(10 * time.Second); int(ran.Load()) != afters; time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d of %d AfterFuncs ran", i, ran.Load(), afters)
			}
		}
		w.stop(h)
		for _, cf := range cancels {
			cf()
		}
		cancel(nil)
		waitIdle(t, w)
	}
	waitGoroutines(t, base)
}

// waitGoroutines waits (seconds at most) until no more goroutines run
// than base, and two of the runtime's or the test framework's.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base+2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
	}
}

// A handler polling its context (Done, Err) from many goroutines, beside
// a context.WithCancel doing the same; and deriving then cancelling many
// children, which must stay linear.
func BenchmarkRedTeamCtx(b *testing.B) {
	h, std := benchContexts(b)
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"watched", h}, {"cancelCtx", std}} {
		b.Run("done-parallel/"+c.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					select {
					case <-c.ctx.Done():
						panic("ended")
					default:
					}
				}
			})
		})
		b.Run("err-parallel/"+c.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if c.ctx.Err() != nil {
						panic("ended")
					}
				}
			})
		})
	}
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("children-%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cancels := make([]context.CancelFunc, n)
			for range b.N {
				for i := range cancels {
					_, cancels[i] = context.WithCancel(h)
				}
				for _, c := range cancels {
					c()
				}
			}
		})
	}
}

// A handler's context under another (two watchdogs, as if one guarded
// handler called another in process), everything racing: the client's
// end, both timeouts, both returns, readers and children of both. Nothing
// deadlocks, both end, and each one's Cause agrees with its Err. Run with
// -race.
func TestRedTeamCtx_NestedHandlerContexts(t *testing.T) {
	clientCause := errors.New("client gone")
	for i := range 300 {
		parent, cancel := context.WithCancelCause(context.Background())
		w1, w2 := newWatchdog(time.Duration(1+i%3)*time.Millisecond), newWatchdog(time.Duration(1+i%2)*time.Millisecond)
		h1 := w1.watch(parent, nil)
		h2 := w2.watch(h1, nil)
		var wg sync.WaitGroup
		for _, h := range []*watched{h1, h2, h2} {
			wg.Go(func() {
				k, cf := context.WithCancel(h)
				defer cf()
				for h.Err() == nil {
					_ = context.Cause(h)
				}
				<-h.Done()
				<-k.Done()
			})
		}
		switch i % 4 {
		case 1:
			cancel(clientCause)
		case 2:
			w2.stop(h2)
		case 3:
			w1.stop(h1)
		}
		ended := make(chan struct{})
		go func() { wg.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("round %d: stuck:\n%s", i, buf[:runtime.Stack(buf, true)])
		}
		for j, h := range []*watched{h1, h2} {
			err, cause := h.Err(), context.Cause(h)
			ok := err == context.DeadlineExceeded && cause == errHandlerTimeout ||
				err == context.Canceled && (cause == context.Canceled || cause == clientCause)
			if !ok {
				t.Fatalf("round %d: context %d ended with %v, cause %v", i, j+1, err, cause)
			}
		}
		w2.stop(h2)
		w1.stop(h1)
		cancel(nil)
		waitIdle(t, w1)
		waitIdle(t, w2)
	}
}

// Stopping AfterFunc registrations (swap-remove by index) from several
// goroutines, in random order, twice each, some while the context ends:
// each registration either is stopped (its stop reports true exactly
// once) or runs exactly once, never both. Run with -race.
func TestRedTeamCtx_AfterFuncStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for i := range 200 {
		h := &watched{parent: context.Background(), deadline: time.Now().Add(time.Hour), result: make(chan handled, 2)}
		const n = 200
		var runs [n]atomic.Int32
		var stoppedTrue [n]atomic.Int32
		stops := make([]func() bool, n)
		for k := range n {
			stops[k] = h.AfterFunc(func() { runs[k].Add(1) })
		}
		var wg sync.WaitGroup
		for g := range 4 {
			order := rng.Perm(n)
			wg.Go(func() {
				for j, k := range order {
					if (k+g)%3 == 0 {
						continue // some are never stopped
					}
					if stops[k]() {
						stoppedTrue[k].Add(1)
					}
					if g == 0 && j == n/2 && i%2 == 0 {
						h.end(false) // the end, halfway through
					}
				}
			})
		}
		wg.Wait()
		h.end(false)
		for k := range n {
			r, s := runs[k].Load(), stoppedTrue[k].Load()
			if r+s != 1 {
				t.Fatalf("round %d: registration %d ran %d times, stopped %d times", i, k, r, s)
			}
		}
	}
}

// Handlers under one long-lived parent (a session's context) that each
// look at Done, derive and cancel children, and return or time out: none
// stays registered on the parent (the context package's children of a
// cancelCtx, read by reflection), nor holds AfterFunc registrations.
func TestRedTeamCtx_NothingLeftOnTheParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWatchdog(time.Millisecond)
	var hs []*watched
	for i := range 2000 {
		h := w.watch(parent, nil)
		_ = h.Done()
		k, kc := context.WithCancel(h)
		context.AfterFunc(h, func() {})
		if i%2 == 0 {
			kc()
		}
		if i%3 == 0 {
			<-k.Done() // the watchdog's timeout
		}
		w.stop(h)
		kc()
		hs = append(hs, h)
	}
	waitIdle(t, w)
	if n := reflect.ValueOf(parent).Elem().FieldByName("children").Len(); n != 0 {
		t.Fatalf("%d registrations left on the parent after every handler ended", n)
	}
	for i, h := range hs {
		h.mu.Lock()
		n, unwatch := len(h.afters), h.unwatch
		h.mu.Unlock()
		if n != 0 || unwatch != nil {
			t.Fatalf("handler %d holds %d AfterFuncs, unwatch %v", i, n, unwatch != nil)
		}
	}
}

// A child derived under a value (WithValue, then WithCancel: a goroutine
// each, as the context package follows a parent of another kind that way)
// beside a direct one and the same under a context.WithCancel.
func BenchmarkRedTeamCtxChildUnderValue(b *testing.B) {
	type k struct{}
	h, std := benchContexts(b)
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"watched", h}, {"watched-value", context.WithValue(h, k{}, 1)}, {"cancelCtx-value", context.WithValue(std, k{}, 1)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_, cf := context.WithCancel(c.ctx)
				cf()
			}
		})
	}
}

// benchContexts are a running handler's context and a context.WithCancel
// to compare it with, both ended when b is done.
func benchContexts(b *testing.B) (*watched, context.Context) {
	w := newWatchdog(time.Hour)
	h := w.watch(context.Background(), nil)
	b.Cleanup(func() { w.stop(h) })
	std, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return h, std
}
