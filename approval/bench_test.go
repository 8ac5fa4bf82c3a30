package approval_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
)

func benchFixture(b *testing.B) *fixture {
	chals, _ := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{MaxChallenges: 1 << 22, MaxPendingPerUser: 1 << 22})
	f := newFixture(b, &fixtureOpts{challenges: chals})
	f.enroll()
	return f
}

// BenchmarkVerify compares a full Gate.Verify of a valid assertion (all 14
// steps, memory stores) with the bare P-256 signature check it contains.
// BENCHMARKS.md records the ratio (target <= 1.5).
func BenchmarkVerify(b *testing.B) {
	b.Run("gate", func(b *testing.B) {
		f := benchFixture(b)
		evs := make([]json.RawMessage, b.N)
		for i := range evs {
			evs[i] = f.evidence(f.challenge(testTool, testArgs))
		}
		ctx := context.Background()
		args := json.RawMessage(testArgs)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := f.gate.Verify(ctx, f.user, approval.Call{Tool: testTool, Arguments: args, Evidence: evs[i]}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ecdsa-p256", func(b *testing.B) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		digest := sha256.Sum256([]byte("authenticatorData || SHA-256(clientDataJSON)"))
		sig, _ := ecdsa.SignASN1(rand.Reader, key, digest[:])
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !ecdsa.VerifyASN1(&key.PublicKey, digest[:], sig) {
				b.Fatal("signature did not verify")
			}
		}
	})
}

// BenchmarkVerifyRatio interleaves one Gate.Verify and one bare
// ecdsa.VerifyASN1 per iteration and reports their time ratio, so that
// load from other processes on a shared machine hits both alike.
func BenchmarkVerifyRatio(b *testing.B) {
	f := benchFixture(b)
	evs := make([]json.RawMessage, b.N)
	for i := range evs {
		evs[i] = f.evidence(f.challenge(testTool, testArgs))
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	digest := sha256.Sum256([]byte("authenticatorData || SHA-256(clientDataJSON)"))
	sig, _ := ecdsa.SignASN1(rand.Reader, key, digest[:])
	ctx := context.Background()
	args := json.RawMessage(testArgs)
	var gate, bare time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := f.gate.Verify(ctx, f.user, approval.Call{Tool: testTool, Arguments: args, Evidence: evs[i]}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if !ecdsa.VerifyASN1(&key.PublicKey, digest[:], sig) {
			b.Fatal("signature did not verify")
		}
		gate += t1.Sub(t0)
		bare += time.Since(t1)
	}
	b.ReportMetric(float64(gate.Nanoseconds())/float64(b.N), "verify-ns/op")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "ecdsa-ns/op")
	b.ReportMetric(float64(gate)/float64(bare), "ratio")
}

func BenchmarkCreateChallenge(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	args := json.RawMessage(testArgs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.gate.CreateChallenge(ctx, f.user, testTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateChallengeParallel(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	args := json.RawMessage(testArgs)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := f.gate.CreateChallenge(ctx, f.user, testTool, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkActionHash(b *testing.B) {
	args := []byte(`{"resourceId":"abc123","options":{"recursive":true,"depth":3},"tags":["a","b"]}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := approval.ActionHash(testTool, args, testServerID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkActionHashHugeExponent: a number the exact check must refuse
// without evaluating 10^999999.
func BenchmarkActionHashHugeExponent(b *testing.B) {
	args := []byte(`{"n":1e-999999,"pad":"` + strings.Repeat("x", 64) + `"}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := approval.ActionHash(testTool, args, testServerID); err == nil {
			b.Fatal("accepted")
		}
	}
}
