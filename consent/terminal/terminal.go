package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// Options configure a [Channel]. nil means defaults.
type Options struct {
	// Path is the terminal device (default "/dev/tty", the controlling
	// terminal of the process, which an MCP stdio server's agent does not
	// hold: its stdin and stdout are pipes).
	Path string
	// Stdio are the files the terminal must not be (default os.Stdin and
	// os.Stdout): when Path is the same file as one of them, the agent on
	// the other end could read the prompt or type the answer, and Ask
	// fails (ACP §9 item 7).
	Stdio []*os.File
	// Approver names who answers at this terminal in responses and audit
	// events (default $USER, else "terminal").
	Approver string
}

// Channel is the terminal [consent.Channel]: it prints the request on a TTY and
// reads "approve" or "deny" (also "a"/"y"/"yes" and "d"/"n"/"no"); any
// other line asks again, so only an explicit approval approves. Input typed
// before the prompt is discarded (Linux), so a stray keypress cannot
// approve a request nobody saw. One prompt is shown at a time; concurrent
// requests wait their turn, each within its own deadline.
//
// The device is opened for each request and closed after, so a vanished
// terminal fails the request (deny) instead of hanging. A Channel is safe
// for concurrent use.
type Channel struct {
	path     string
	stdio    []*os.File
	approver string
	turn     chan struct{} // one prompt at a time
}

var _ consent.Channel = (*Channel)(nil)

// New returns a terminal channel. It opens nothing until Ask.
func New(opts *Options) (*Channel, error) {
	t := &Channel{path: "/dev/tty", stdio: []*os.File{os.Stdin, os.Stdout}, approver: os.Getenv("USER"), turn: make(chan struct{}, 1)}
	if opts != nil {
		if opts.Path != "" {
			t.path = opts.Path
		}
		if opts.Stdio != nil {
			t.stdio = opts.Stdio
		}
		if opts.Approver != "" {
			t.approver = opts.Approver
		}
	}
	if t.approver == "" {
		t.approver = "terminal"
	}
	return t, nil
}

// Name returns "terminal".
func (t *Channel) Name() string { return "terminal" }

// Ask implements [consent.Channel].
func (t *Channel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
	select {
	case t.turn <- struct{}{}:
		defer func() { <-t.turn }()
	case <-ctx.Done():
		return consent.Reply{}, ctx.Err()
	}
	f, err := t.open()
	if err != nil {
		return consent.Reply{}, err
	}
	defer f.Close()
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		// Without deadlines a timeout could not interrupt the read.
		return consent.Reply{}, fmt.Errorf("%w: terminal %s does not support read deadlines", consent.ErrChannel, t.path)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()

	flushInput(f)
	if _, err := f.WriteString("\n" + consent.Summary(req)); err != nil {
		return consent.Reply{}, t.ioErr(ctx, err)
	}
	in := bufio.NewReaderSize(f, 256)
	for {
		if _, err := f.WriteString("Approve this call? [a]pprove / [d]eny: "); err != nil {
			return consent.Reply{}, t.ioErr(ctx, err)
		}
		line, err := readLine(in)
		if err != nil {
			return consent.Reply{}, t.ioErr(ctx, err)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "a", "approve", "y", "yes":
			_, _ = f.WriteString("approved\n")
			return consent.Reply{Decision: consent.Approved, Approver: t.approver, Attestation: consent.AttestedHuman}, nil
		case "d", "deny", "n", "no":
			_, _ = f.WriteString("denied\n")
			return consent.Reply{Decision: consent.Denied, Approver: t.approver, Attestation: consent.AttestedHuman}, nil
		}
	}
}

// open opens the terminal and checks it is a terminal and not the agent's
// stdio.
func (t *Channel) open() (*os.File, error) {
	f, err := openTTY(t.path)
	if err != nil {
		return nil, fmt.Errorf("%w: opening terminal: %w", consent.ErrChannel, err)
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a terminal", consent.ErrChannel, t.path)
	}
	for _, s := range t.stdio {
		if s == nil {
			continue
		}
		if ss, err := s.Stat(); err == nil && os.SameFile(st, ss) {
			f.Close()
			return nil, fmt.Errorf("%w: terminal %s is the agent's stdio (%s); consent needs a channel the agent cannot reach", consent.ErrChannel, t.path, s.Name())
		}
	}
	return f, nil
}

// ioErr reports a read or write failure, as ctx's error when ctx ended it.
func (t *Channel) ioErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: terminal: %w", consent.ErrChannel, err)
}

// readLine reads one line of at most 256 bytes; longer lines are consumed
// and answered with an empty line (ask again).
func readLine(in *bufio.Reader) (string, error) {
	line, err := in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = in.ReadSlice('\n')
		}
		if err != nil {
			return "", err
		}
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(line), nil
}
