package dlp

// VetoOf is the veto of a built-in regex, for the reference scanner of
// the agreement tests: a veto is a rule's meaning, as its Exclude is, and
// the reference applies both after its own regexp matches.
func VetoOf(regex string) func(text string, m []int) bool { return vetoes[regex] }
