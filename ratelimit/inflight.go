package ratelimit

import (
	"fmt"
	"sync"
)

// InFlightOptions configure an [InFlight]. nil means defaults; zero fields
// too.
type InFlightOptions struct {
	// PerAgent caps one agent's calls in flight at once (default 64).
	PerAgent int
	// PerTool caps one tool's calls in flight at once, all agents together
	// (default 256).
	PerTool int
	// Total caps all calls in flight at once (default 1,024). It also
	// bounds the memory of the counters: one entry per agent and per tool
	// with a call in flight, so at most 2*Total entries.
	Total int
}

// Defaults of [InFlightOptions].
const (
	DefaultInFlightPerAgent = 64
	DefaultInFlightPerTool  = 256
	DefaultInFlightTotal    = 1024
)

// InFlight caps the calls in flight per agent, per tool and in total. It
// never waits: [InFlight.Acquire] answers at once, and a call over a cap is
// refused with a [*CapacityError] (errors.Is(err, [ErrCapacity])) naming the
// cap, so that excess load is told apart from an outage and retried by the
// client instead of queueing behind a shared store until it times out.
//
// An InFlight is safe for concurrent use.
type InFlight struct {
	o      InFlightOptions
	mu     sync.Mutex
	agents map[string]int
	tools  map[string]int
	total  int
}

// NewInFlight returns an InFlight. opts may be nil.
func NewInFlight(opts *InFlightOptions) (*InFlight, error) {
	var o InFlightOptions
	if opts != nil {
		o = *opts
	}
	if o.PerAgent < 0 || o.PerTool < 0 || o.Total < 0 {
		return nil, fmt.Errorf("%w: InFlightOptions %+v has a negative cap; zero means default", ErrInvalidOptions, o)
	}
	if o.PerAgent == 0 {
		o.PerAgent = DefaultInFlightPerAgent
	}
	if o.PerTool == 0 {
		o.PerTool = DefaultInFlightPerTool
	}
	if o.Total == 0 {
		o.Total = DefaultInFlightTotal
	}
	return &InFlight{o: o, agents: make(map[string]int), tools: make(map[string]int)}, nil
}

// Acquire counts one call of agent to tool in flight, or refuses it at once
// with a [*CapacityError] when a cap is reached. On success the caller must
// call release exactly once when the call ends (a second call does nothing).
func (f *InFlight) Acquire(agent, tool string) (release func(), err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.total >= f.o.Total:
		return nil, &CapacityError{What: "calls in flight", Cap: CapInFlightTotal, Limit: f.o.Total, Hint: "the server is at its concurrency limit; retry shortly or raise the cap"}
	case f.agents[agent] >= f.o.PerAgent:
		return nil, &CapacityError{What: "calls in flight of this agent", Cap: CapInFlightPerAgent, Limit: f.o.PerAgent, Hint: "wait for earlier calls to finish, or raise the cap"}
	case f.tools[tool] >= f.o.PerTool:
		return nil, &CapacityError{What: "calls in flight to this tool", Cap: CapInFlightPerTool, Limit: f.o.PerTool, Hint: "retry shortly, or raise the cap"}
	}
	f.total++
	f.agents[agent]++
	f.tools[tool]++
	var once sync.Once
	return func() { once.Do(func() { f.release(agent, tool) }) }, nil
}

func (f *InFlight) release(agent, tool string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total--
	dec(f.agents, agent)
	dec(f.tools, tool)
}

func dec(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
		return
	}
	m[k]--
}

// InFlightNow reports the calls in flight in total and the number of agents
// and tools with at least one.
func (f *InFlight) InFlightNow() (total, agents, tools int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total, len(f.agents), len(f.tools)
}
