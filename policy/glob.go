package policy

import "github.com/gatehouse-dev/gatehouse/internal/glob"

// globMatch reports whether s matches pattern, where '*' matches any run of
// characters (also none) and every other character matches itself
// (internal/glob, which scope's argument patterns use too).
func globMatch(pattern, s string) bool { return glob.Match(pattern, s) }
