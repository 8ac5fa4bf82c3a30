package otel

import (
	"fmt"
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
	if n := len(*c.m.Load()); n != maxCached {
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
