//go:build !linux

package confine

// mountAliases is Linux only: Command confines nothing elsewhere.
func mountAliases(paths []string) ([]string, error) { return nil, nil }
