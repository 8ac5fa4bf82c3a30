package approval

import (
	"context"
	"errors"
)

// Credentials returns the credentials enrolled for u, oldest first; none is
// not an error. A store failure wraps [ErrUnavailable].
func (g *Gate) Credentials(ctx context.Context, u User) ([]Credential, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	cs, err := g.credentials.List(ctx, u.Handle)
	if err != nil {
		return nil, errors.Join(ErrUnavailable, err)
	}
	return cs, nil
}
