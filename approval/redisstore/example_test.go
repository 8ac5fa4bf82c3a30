package redisstore_test

import (
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/redisstore"
)

// ExampleNewChallengeStore: the client must honour context deadlines so
// that a hung Redis fails closed within Options.Timeout.
func ExampleNewChallengeStore() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	_, err := redisstore.NewChallengeStore(rdb, nil)
	fmt.Println(errors.Is(err, approval.ErrInvalidOptions))

	rdb2 := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb2.Close()
	_, err = redisstore.NewChallengeStore(rdb2, nil) // no connection is made yet
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}
