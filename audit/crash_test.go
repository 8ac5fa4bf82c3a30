package audit_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

const crashChildEnv = "GATEHOUSE_AUDIT_CRASH_CHILD"

func crashKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("gatehouse audit crash test"))
	return ed25519.NewKeyFromSeed(seed[:])
}

func crashOptions() *audit.Options {
	return &audit.Options{
		Durability:      audit.DurabilityGroup,
		MaxLineBytes:    4096,
		MaxFileBytes:    16 << 10, // rotate often, so some kills land in a rotation
		Signer:          crashKey(),
		CheckpointEvery: 7,
	}
}

// TestMain runs the crash child when re-executed by TestCrashRecovery.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	os.Exit(m.Run())
}

// crashChild writes events from 4 goroutines until killed, printing the seq
// of every event whose Write returned (so is durable) on stdout.
func crashChild(path string) {
	w, err := audit.Open(path, crashOptions())
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	fmt.Fprintln(out, "ready")
	out.Flush()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				e := sampleEvent(i)
				if err := w.Write(context.Background(), e); err != nil {
					mu.Lock()
					fmt.Fprintln(out, "error", err)
					out.Flush()
					mu.Unlock()
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintln(out, "ack", e.Seq)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestCrashRecovery kills a writing child with SIGKILL at random points, 50
// times on the same log. After each kill, Open must recover, the whole log
// (rotated files and checkpoints included) must verify, and every event the
// child acknowledged must be in it.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 50 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	rng := rand.New(rand.NewPCG(42, 7))
	var maxAcked uint64
	repaired := 0
	for round := 0; round < 50; round++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() || sc.Text() != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child did not start: %q", round, sc.Text())
		}
		delay := time.Duration(rng.IntN(20_000)) * time.Microsecond
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
		var acked []uint64
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 2 && f[0] == "ack" {
				n, _ := strconv.ParseUint(f[1], 10, 64)
				acked = append(acked, n)
				continue
			}
			t.Errorf("round %d: child says %q", round, sc.Text())
		}
		timer.Stop()
		cmd.Wait()

		w, err := audit.Open(path, crashOptions())
		if err != nil {
			t.Fatalf("round %d: Open after kill: %v", round, err)
		}
		last := w.Last().Seq
		if r := w.Recovery(); r.TornBytes > 0 || r.TornCheckpointBytes > 0 {
			repaired++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, s := range acked {
			maxAcked = max(maxAcked, s)
		}
		if maxAcked > last {
			t.Fatalf("round %d: acknowledged seq %d lost (log ends at %d)", round, maxAcked, last)
		}
		sum := verifyDir(t, path)
		if sum.LastSeq != last || sum.FirstSeq != 1 || sum.Events != int(last) {
			t.Fatalf("round %d: summary %+v, Open found last seq %d", round, sum, last)
		}
	}
	files, _ := audit.Files(path)
	t.Logf("acknowledged up to seq %d; %d files; %d rounds repaired a torn tail", maxAcked, len(files), repaired)
	if maxAcked == 0 {
		t.Fatal("no event was ever acknowledged: the test proved nothing")
	}
}

// verifyDir verifies every file of the log at path with its checkpoints.
func verifyDir(t *testing.T, path string) audit.Summary {
	t.Helper()
	files, err := audit.Files(path)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := os.Open(path + ".checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	sum, err := audit.VerifyFiles(files, &audit.VerifyOptions{
		PublicKey: crashKey().Public().(ed25519.PublicKey), Checkpoints: ck,
	})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return sum
}
