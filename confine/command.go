package confine

import (
	"errors"
)

// Errors of Command.
var (
	// ErrNoLandlock: the kernel offers no Landlock, so a command cannot be
	// confined; Command refuses unless CommandOptions.LexicalOnly is set.
	ErrNoLandlock = errors.New("confine: Landlock is not available on this system, so the command cannot be confined (set CommandOptions.LexicalOnly to run it with the lexical check alone)")
	// ErrTooMany: the rules needed to leave the protected paths out are
	// too many (a relative protected path matched in too many places, or a
	// directory with too many entries along a protected path).
	ErrTooMany = errors.New("confine: too many paths to confine the command")
)

// CommandOptions configure Command. A nil *CommandOptions means defaults.
type CommandOptions struct {
	// Dir is the command's working directory ("" = the current one). A
	// relative protected path (".env") is looked for under it.
	Dir string
	// Protected adds paths to the policy's protected paths.
	Protected []string
	// LexicalOnly lets Command run the command unconfined where Landlock
	// is unavailable (the result's Confined reports false); the caller
	// then relies on the policy's lexical check alone. Without it,
	// Command returns ErrNoLandlock there.
	LexicalOnly bool
}

// maxRules bounds the Landlock rules of one command.
const maxRules = 4096

// rulesArg is the first argument of the re-executed helper.
const rulesArg = "-gatehouse-confine-landlock-v1"
