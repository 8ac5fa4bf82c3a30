//go:build !linux

package confine

import (
	"context"
	"os/exec"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Cmd is a command prepared by Command.
type Cmd struct {
	*exec.Cmd
	// Confined is always false here: Landlock is Linux only.
	Confined bool
}

// ABI is 0: Landlock is Linux only.
func ABI() int { return 0 }

// Command refuses with ErrNoLandlock unless opts.LexicalOnly is set; then
// it runs the command unconfined.
func Command(ctx context.Context, p *policy.Policy, opts *CommandOptions, name string, args ...string) (*Cmd, error) {
	if opts == nil || !opts.LexicalOnly {
		return nil, ErrNoLandlock
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = opts.Dir
	cmd.Env = envFor(*opts)
	cmd.WaitDelay = waitDelay
	return &Cmd{Cmd: cmd}, nil
}
