package redisstore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/redisstore"
)

// ExampleNewChallengeStore: the client must honour context deadlines so
// that a hung Redis fails closed within Options.Timeout. With such a
// client, NewChallengeStore reads INFO and refuses a Redis that may evict
// keys (TestConstructorsRefuseEviction).
func ExampleNewChallengeStore() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	_, err := redisstore.NewChallengeStore(context.Background(), rdb, nil)
	fmt.Println(errors.Is(err, approval.ErrInvalidOptions))
	// Output:
	// true
}
