package approval

import (
	"bytes"
	"fmt"
)

// credTable is the credential index shared by the memory and file stores.
// It is not safe for concurrent use; its owners lock.
type credTable struct {
	maxTotal, maxPerUser int
	byUser               map[string][]*Credential // user handle -> credentials, oldest first
	owner                map[string]string        // credential ID -> user handle
}

func newCredTable(opts *MemoryCredentialOptions) (credTable, error) {
	t := credTable{
		maxTotal: DefaultMaxCredentials, maxPerUser: DefaultMaxCredentialsPerUser,
		byUser: map[string][]*Credential{}, owner: map[string]string{},
	}
	if opts != nil {
		if opts.MaxCredentials < 0 || opts.MaxCredentialsPerUser < 0 {
			return t, fmt.Errorf("%w: MemoryCredentialOptions fields must be >= 0", ErrInvalidOptions)
		}
		if opts.MaxCredentials > 0 {
			t.maxTotal = opts.MaxCredentials
		}
		if opts.MaxCredentialsPerUser > 0 {
			t.maxPerUser = opts.MaxCredentialsPerUser
		}
	}
	return t, nil
}

// add stores c; with first, only when c's user has no credential.
func (t *credTable) add(c *Credential, first bool) error {
	if len(c.ID) == 0 || len(c.UserHandle) == 0 {
		return fmt.Errorf("%w: credential without ID or user handle", ErrInvalidOptions)
	}
	if _, ok := t.owner[string(c.ID)]; ok {
		return fmt.Errorf("%w: credential ID enrolled already", ErrDuplicate)
	}
	if len(t.owner) >= t.maxTotal {
		return fmt.Errorf("%w: %d credentials enrolled", ErrCapacity, len(t.owner))
	}
	u := string(c.UserHandle)
	if first && len(t.byUser[u]) > 0 {
		return ErrHasCredentials
	}
	if len(t.byUser[u]) >= t.maxPerUser {
		return fmt.Errorf("%w: user has %d credentials, the maximum", ErrCapacity, len(t.byUser[u]))
	}
	t.byUser[u] = append(t.byUser[u], cloneCredential(c))
	t.owner[string(c.ID)] = u
	return nil
}

func (t *credTable) remove(user, id []byte) {
	u := string(user)
	list := t.byUser[u]
	for i, c := range list {
		if bytes.Equal(c.ID, id) {
			t.byUser[u] = append(list[:i:i], list[i+1:]...)
			if len(t.byUser[u]) == 0 {
				delete(t.byUser, u)
			}
			delete(t.owner, string(id))
			return
		}
	}
}

func (t *credTable) list(user []byte) []Credential {
	list := t.byUser[string(user)]
	out := make([]Credential, len(list))
	for i, c := range list {
		out[i] = *cloneCredential(c)
	}
	return out
}

func (t *credTable) find(user, id []byte) *Credential {
	for _, c := range t.byUser[string(user)] {
		if bytes.Equal(c.ID, id) {
			return c
		}
	}
	return nil
}

func (t *credTable) get(user, id []byte) (*Credential, error) {
	c := t.find(user, id)
	if c == nil {
		return nil, ErrNotFound
	}
	return cloneCredential(c), nil
}

// updateCounter applies the rule and returns the previous count.
func (t *credTable) updateCounter(user, id []byte, count uint32) (uint32, error) {
	c := t.find(user, id)
	if c == nil {
		return 0, ErrNotFound
	}
	prev := c.SignCount
	if !counterAdvances(prev, count) {
		return prev, fmt.Errorf("%w: stored %d, got %d", ErrCounterNotAdvanced, prev, count)
	}
	c.SignCount = count
	return prev, nil
}

func (t *credTable) all() []*Credential {
	var out []*Credential
	for _, list := range t.byUser {
		out = append(out, list...)
	}
	return out
}

func cloneCredential(c *Credential) *Credential {
	cp := *c
	cp.ID = append([]byte(nil), c.ID...)
	cp.UserHandle = append([]byte(nil), c.UserHandle...)
	cp.PublicKey = append([]byte(nil), c.PublicKey...)
	cp.Transports = append([]string(nil), c.Transports...)
	cp.AAGUID = append([]byte(nil), c.AAGUID...)
	return &cp
}
