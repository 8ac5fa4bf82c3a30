package approval

// ParseAssertion exposes parseAssertion to the external tests.
var ParseAssertion = parseAssertion

// PendingUsers is the number of user handles the store counts pending
// challenges for.
func (s *MemoryChallengeStore) PendingUsers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
