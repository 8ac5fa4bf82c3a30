package otel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// TestCacheOneValuePerKey: concurrent requests that meet a new key at the
// same time all get the one value kept for it, and every later lookup
// returns that value without building.
func TestCacheOneValuePerKey(t *testing.T) {
	var c cache[string, *int]
	const workers, keys = 8, 50
	got := make([][keys]*int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range keys {
				got[w][i] = c.get(fmt.Sprint(i), func() *int { v := i; return &v })
			}
		})
	}
	wg.Wait()
	for i := range keys {
		kept := c.get(fmt.Sprint(i), func() *int { t.Fatalf("key %d built again", i); return nil })
		for w := range workers {
			if got[w][i] != kept || *kept != i {
				t.Fatalf("key %d: worker %d got %p, kept %p", i, w, got[w][i], kept)
			}
		}
	}
}

// TestCacheBound: past maxCached keys, values are built per call and not
// kept; the keys kept before stay.
func TestCacheBound(t *testing.T) {
	var c cache[int, int]
	for i := range maxCached + 10 {
		c.get(i, func() int { return i })
	}
	if n := c.n.Load(); n != maxCached {
		t.Fatalf("%d kept, want %d", n, maxCached)
	}
	builds := 0
	for range 3 {
		if v := c.get(maxCached+5, func() int { builds++; return -1 }); v != -1 {
			t.Fatalf("got %d", v)
		}
	}
	if builds != 3 {
		t.Fatalf("%d builds past the bound, want one per call", builds)
	}
	if v := c.get(7, func() int { t.Fatal("a kept key was built again"); return 0 }); v != 7 {
		t.Fatalf("key 7: %d", v)
	}
}

// TestCacheFillIsLinear: keeping maxCached keys costs about as much as the
// keys themselves. Copying the whole map for every new key cost O(n) per
// key: about 1.4 GB allocated, and 1.5 s spent under the writers' lock,
// to fill one cache of decision keys (a server with a few thousand tools).
func TestCacheFillIsLinear(t *testing.T) {
	var c cache[decisionKey, *decision]
	keys := make([]decisionKey, maxCached)
	for i := range keys {
		keys[i] = decisionKey{outcome: "ALLOW", stage: "policy", method: "tools/call", tool: fmt.Sprint("tool-", i), registered: true}
	}
	d := &decision{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		c.get(k, func() *decision { return d })
	}
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 64 {
		t.Fatalf("filling %d keys allocated %d MB, want at most 64", maxCached, mb)
	}
	for _, k := range keys {
		if c.get(k, func() *decision { t.Fatalf("%v built again", k); return nil }) != d {
			t.Fatalf("%v: another value", k)
		}
	}
}

// TestCacheRacingFill: workers meeting the same keys in different orders
// while the cache fills and reaches its bound all get the key's own value,
// the bound holds (give or take the racing workers), and a kept key then
// answers with its kept value. (One value per key holds below the bound,
// TestCacheOneValuePerKey; a lookup that finds the cache full builds its
// own and cannot know that a racing insert of the same key is landing.)
func TestCacheRacingFill(t *testing.T) {
	var c cache[int, *int]
	const workers, keys = 8, maxCached + 200
	got := make([][]*int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		got[w] = make([]*int, keys)
		order := rand.New(rand.NewPCG(uint64(w), 0)).Perm(keys) // each worker its own order
		wg.Go(func() {
			for _, i := range order {
				got[w][i] = c.get(i, func() *int { v := i; return &v })
				if *got[w][i] != i {
					t.Errorf("key %d: value %d", i, *got[w][i])
				}
			}
		})
	}
	wg.Wait()
	if n := c.n.Load(); n < maxCached || n > maxCached+workers {
		t.Fatalf("%d kept, want %d to %d", n, maxCached, maxCached+workers)
	}
	for i := range keys {
		v, ok := c.m.Load(i)
		if !ok {
			continue
		}
		if got := c.get(i, func() *int { t.Fatalf("kept key %d built again", i); return nil }); got != v.(*int) || *got != i {
			t.Fatalf("kept key %d: another value", i)
		}
	}
}
