//go:build !linux

package confine

// resolveOwn is Linux only: Command confines nothing elsewhere.
func resolveOwn(p string) (real, planted string) { return resolved(p), "" }
