//go:build linux

package terminal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
	"github.com/gatehouse-dev/gatehouse/consent/terminal"
)

// ptyHuman sits at the master side of a pseudo-terminal whose slave the
// Terminal channel opens.
type ptyHuman struct {
	master, slave *os.File
	path          string

	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{} // closed and replaced on every read
	done    chan struct{}
}

// openPTY opens /dev/ptmx, unlocks the slave and starts reading the master.
func openPTY(t *testing.T) *ptyHuman {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n int
	c, _ := master.SyscallConn()
	_ = c.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	})
	if err != nil {
		master.Close()
		t.Fatalf("unlocking the pty: %v", err)
	}
	h := &ptyHuman{master: master, path: fmt.Sprintf("/dev/pts/%d", n), changed: make(chan struct{}), done: make(chan struct{})}
	// Hold the slave open so the master does not read EIO between requests.
	if h.slave, err = os.OpenFile(h.path, os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		master.Close()
		t.Fatalf("opening %s: %v", h.path, err)
	}
	go h.read()
	t.Cleanup(func() { h.Break(); <-h.done })
	return h
}

func (h *ptyHuman) read() {
	defer close(h.done)
	buf := make([]byte, 4096)
	for {
		n, err := h.master.Read(buf)
		h.mu.Lock()
		h.out.Write(buf[:n])
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (h *ptyHuman) Shown(ctx context.Context, req *consent.ConsentRequest) (string, error) {
	for {
		h.mu.Lock()
		s, ch := h.out.String(), h.changed
		h.mu.Unlock()
		if i := strings.LastIndex(s, "Consent requested: "+req.ID); i >= 0 && strings.HasSuffix(s, "[d]eny: ") {
			return s[i:], nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", fmt.Errorf("prompt for %s not shown; terminal shows:\n%s", req.ID, s)
		}
	}
}

func (h *ptyHuman) Decide(_ context.Context, _ *consent.ConsentRequest, d consent.Decision) error {
	answer := "deny\n"
	if d == consent.Approved {
		answer = "approve\n"
	}
	_, err := h.master.WriteString(answer)
	return err
}

// Forge types answers that look like approval but are not one.
func (h *ptyHuman) Forge(context.Context, *consent.ConsentRequest) error {
	_, err := h.master.WriteString("approve it\n" + strings.Repeat("a", 300) + "\nyes!\n")
	return err
}

func (h *ptyHuman) Break() {
	h.master.Close()
	h.slave.Close()
}

func newTerminal(t *testing.T, h *ptyHuman) *terminal.Channel {
	t.Helper()
	term, err := terminal.New(&terminal.Options{Path: h.path, Stdio: []*os.File{}, Approver: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	return term
}

func TestTerminalChannel(t *testing.T) {
	consenttest.TestChannel(t, func(t *testing.T) (consent.Channel, consenttest.Human) {
		h := openPTY(t)
		return newTerminal(t, h), h
	})
}

func TestTerminalRefusesAgentStdio(t *testing.T) {
	h := openPTY(t)
	term, _ := terminal.New(&terminal.Options{Path: h.path, Stdio: []*os.File{h.slave}})
	_, err := term.Ask(context.Background(), newRequest(t, newClock(), nil))
	if !errors.Is(err, consent.ErrChannel) || !strings.Contains(err.Error(), "stdio") {
		t.Fatalf("terminal that is the agent's stdio: %v, want ErrChannel naming stdio", err)
	}
}

func TestTerminalRefusesNonTerminal(t *testing.T) {
	p := filepath.Join(t.TempDir(), "answers")
	_ = os.WriteFile(p, []byte("approve\n"), 0o600)
	term, _ := terminal.New(&terminal.Options{Path: p, Stdio: []*os.File{}})
	rep, err := term.Ask(context.Background(), newRequest(t, newClock(), nil))
	if !errors.Is(err, consent.ErrChannel) || rep.Decision == consent.Approved {
		t.Fatalf("regular file as terminal: %+v, %v; want ErrChannel", rep, err)
	}
}

func TestTerminalDiscardsTypeahead(t *testing.T) {
	h := openPTY(t)
	term := newTerminal(t, h)
	// Typed before any prompt: must not answer the next request.
	if _, err := h.master.WriteString("approve\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the line discipline queue it
	req := newRequest(t, newClock(), map[string]any{"x": 1})
	type res struct {
		r   consent.Reply
		err error
	}
	done := make(chan res, 1)
	go func() { r, err := term.Ask(context.Background(), req); done <- res{r, err} }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.Shown(ctx, req); err != nil {
		t.Fatal(err)
	}
	_ = h.Decide(ctx, req, consent.Denied)
	if r := <-done; r.err != nil || r.r.Decision != consent.Denied || r.r.Approver != "operator" {
		t.Fatalf("Ask = %+v, %v; want the denial typed after the prompt", r.r, r.err)
	}
}

func TestTerminalShowsHiddenCharacters(t *testing.T) {
	h := openPTY(t)
	term := newTerminal(t, h)
	// An escape sequence that would clear the screen, and a bidi override
	// that would reverse the text after it.
	req := newRequest(t, newClock(), map[string]any{"cmd": "ls\x1b[2J\u202Efdp.exe"})
	go func() { _, _ = term.Ask(context.Background(), req) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	text, err := h.Shown(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	_ = h.Decide(ctx, req, consent.Denied)
	if strings.ContainsAny(text, "\x1b\u202E") || !strings.Contains(text, `\u202e`) || !strings.Contains(text, `\u001b`) {
		t.Fatalf("hidden characters reached the terminal raw:\n%q", text)
	}
}
