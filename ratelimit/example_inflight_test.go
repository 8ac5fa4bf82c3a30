package ratelimit_test

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// An InFlight cap answers at once: excess load is refused with a capacity
// reason (map it to -32002 "Rate limit exceeded"), never queued into a
// timeout that reads as an outage.
func ExampleInFlight() {
	f, _ := ratelimit.NewInFlight(&ratelimit.InFlightOptions{PerAgent: 1})
	release, err := f.Acquire("client:alice", "read_file")
	fmt.Println(err)
	_, err = f.Acquire("client:alice", "write_file")
	fmt.Println(errors.Is(err, ratelimit.ErrCapacity), errors.Is(err, ratelimit.ErrUnavailable))
	fmt.Println(err)
	release()
	_, err = f.Acquire("client:alice", "write_file")
	fmt.Println(err)
	// Output:
	// <nil>
	// true false
	// ratelimit: calls in flight of this agent reached the cap of 1 (InFlightOptions.PerAgent); wait for earlier calls to finish, or raise the cap
	// <nil>
}
