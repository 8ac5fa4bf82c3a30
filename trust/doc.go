// Package trust keeps agents' trust levels (QWED-Agent v1.1 §8): which
// risk levels need a human's consent on top of the policy (§8.1), and
// automatic degradation on violations (§8.3). [MemoryStore] holds levels
// in one process; package redistrust shares them between replicas in
// Redis; package trusttest checks any [Store] against the contract.
//
//	store, _ := trust.NewMemoryStore(nil)
//	level, err := store.Level(ctx, agent)
//	if err != nil {
//		level = trust.Untrusted // fail closed
//	}
//	if level.RequiresConsent(policy.Classify(tool).Risk) { /* ask */ }
//
// # Security
//
// Every store error means [Untrusted]: everything asks. An unknown risk
// ranks as critical and an unknown violation suspends. Agent ids are
// bounded ([MaxAgentLen]) and so is the number of agents a MemoryStore
// holds (MemoryOptions.MaxAgents); the Redis store expires idle agents.
//
// # Concurrency
//
// Stores are safe for concurrent use and start no goroutines.
package trust
