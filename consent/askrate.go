package consent

import (
	"fmt"
	"sync"
	"time"
)

// Defaults of the per-agent ask limit (AskerOptions.MaxAsksPerAgent).
const (
	DefaultMaxAsksPerAgent = 30
	DefaultAskWindow       = time.Minute
	// MaxAskAgents bounds the agents an Asker counts at once; beyond it, an
	// agent not yet counted is refused (its own reason), never a counted
	// one reset.
	MaxAskAgents = 10_000
)

// askLimiter counts asks per agent in fixed windows, so one agent flooding
// humans with questions (and filling nonce stores with its approvals)
// exhausts only its own share. Memory is bounded by MaxAskAgents; windows
// that ended are dropped when the table is full.
type askLimiter struct {
	max    int
	window time.Duration

	mu     sync.Mutex
	counts map[string]askCount
}

type askCount struct {
	start time.Time
	n     int
}

func newAskLimiter(max int, window time.Duration) *askLimiter {
	if max < 0 {
		return nil
	}
	if max == 0 {
		max = DefaultMaxAsksPerAgent
	}
	if window <= 0 {
		window = DefaultAskWindow
	}
	return &askLimiter{max: max, window: window, counts: map[string]askCount{}}
}

// allow counts one ask by agent at now, or says why not.
func (l *askLimiter) allow(agent string, now time.Time) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.counts[agent]
	if ok && now.Sub(c.start) >= l.window {
		c, ok = askCount{}, false
		delete(l.counts, agent)
	}
	if !ok {
		if len(l.counts) >= MaxAskAgents {
			l.sweep(now)
		}
		if len(l.counts) >= MaxAskAgents {
			return fmt.Errorf("%w: %d agents have asked within %v (MaxAskAgents); new agents are refused until their windows end", ErrCapacity, len(l.counts), l.window)
		}
		c = askCount{start: now}
	}
	if c.n >= l.max {
		return fmt.Errorf("%w: agent asked %d times within %v (AskerOptions.MaxAsksPerAgent)", ErrCapacity, c.n, l.window)
	}
	c.n++
	l.counts[agent] = c
	return nil
}

func (l *askLimiter) sweep(now time.Time) {
	for a, c := range l.counts {
		if now.Sub(c.start) >= l.window {
			delete(l.counts, a)
		}
	}
}
