package confine_test

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// TestRedteamCommandSignalsOnlyItsOwn: a confined command could signal
// any process of the user: kill the server that ran it (every later call
// unanswered) or the user's editor. Landlock's signal scope (ABI 6) now
// keeps its signals to the processes it started.
func TestRedteamCommandSignalsOnlyItsOwn(t *testing.T) {
	requireLandlock(t)
	if confine.ABI() < 6 {
		t.Skip("Landlock ABI 6 (signal scoping) is not available")
	}
	h := newHome(t)
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	pid := strconv.Itoa(victim.Process.Pid)
	out, err := command(t, context.Background(), h, nil, "sh", "-c", "kill -TERM "+pid).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ermitted") {
		t.Errorf("kill of a process outside the command: %q %v", out, err)
	}
	// Near miss: its own children are its to signal.
	out, err = command(t, context.Background(), h, nil, "sh", "-c", "sleep 30 & kill $! && wait $!; echo $?").CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "143\n") {
		t.Errorf("kill of its own child: %q %v", out, err)
	}
}
