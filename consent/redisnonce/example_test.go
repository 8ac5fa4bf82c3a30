package redisnonce_test

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
)

// Every replica verifying consent proofs shares one Redis, so an approval
// runs once across all of them.
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	nonces, err := redisnonce.New(context.Background(), rdb, nil)
	if err != nil {
		panic(err)
	}
	// Pass nonces to consent.NewAsker or consent.NewVerifier.
	var _ consent.NonceStore = nonces
}
