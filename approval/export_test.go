package approval

// ParseAssertion exposes parseAssertion to the external tests.
var ParseAssertion = parseAssertion
