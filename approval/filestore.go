package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

// fileFormatVersion is the "version" of the credential file.
const fileFormatVersion = 1

// FileCredentialStore is a [CredentialStore] persisted to one JSON file
// (mode 0600). Every change rewrites the file through a temporary file in
// the same directory, fsync and rename, so a crash leaves either the old or
// the new content, never a torn file; the content survives restarts. A
// change that cannot be written is rolled back in memory and fails with
// [ErrUnavailable].
//
// One store owns a file: [OpenFileCredentialStore] takes an exclusive
// advisory lock on "<path>.lock" (flock on unix, LockFileEx on Windows) for
// the store's lifetime, so a second store on the same file, in another
// process or this one, fails with [ErrLocked] instead of losing updates.
// Use Redis (approval/redisstore) for several replicas. Close releases the
// lock. Safe for concurrent use.
type FileCredentialStore struct {
	path string
	lock *fsutil.Lock

	mu sync.RWMutex
	t  credTable
}

var (
	_ CredentialStore      = (*FileCredentialStore)(nil)
	_ FirstCredentialAdder = (*FileCredentialStore)(nil)
)

type credentialFile struct {
	Version     int           `json:"version"`
	Credentials []*Credential `json:"credentials"`
}

// OpenFileCredentialStore loads path, or starts empty when it does not
// exist (the file is created on the first Add). opts may be nil; its limits
// apply to new enrollments.
func OpenFileCredentialStore(path string, opts *MemoryCredentialOptions) (*FileCredentialStore, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: empty credential file path", ErrInvalidOptions)
	}
	t, err := newCredTable(opts)
	if err != nil {
		return nil, err
	}
	lock, err := fsutil.TryLock(path + ".lock")
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: %s is open in another process or store (lock file %s.lock); "+
			"a credential file has one writer: stop the other one, or use approval/redisstore for several replicas", ErrLocked, path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("approval: locking the credential file: %w", err)
	}
	s, err := loadCredentialFile(path, t)
	if err != nil {
		lock.Close()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// Close releases the file's lock. The store must not be used afterwards.
func (s *FileCredentialStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lock.Close()
}

func loadCredentialFile(path string, t credTable) (*FileCredentialStore, error) {
	s := &FileCredentialStore{path: path, t: t}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("approval: reading credential file: %w", err)
	}
	var f credentialFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("approval: credential file %s is corrupt: %w", path, err)
	}
	if f.Version != fileFormatVersion {
		return nil, fmt.Errorf("approval: credential file %s has version %d, want %d", path, f.Version, fileFormatVersion)
	}
	for _, c := range f.Credentials {
		if c == nil || len(c.ID) == 0 || len(c.UserHandle) == 0 || len(c.PublicKey) == 0 {
			return nil, fmt.Errorf("approval: credential file %s has an incomplete credential", path)
		}
		if _, dup := s.t.owner[string(c.ID)]; dup {
			return nil, fmt.Errorf("approval: credential file %s enrolls one credential ID twice", path)
		}
		// Loading bypasses the limits: they bound new enrollments only.
		u := string(c.UserHandle)
		s.t.byUser[u] = append(s.t.byUser[u], c)
		s.t.owner[string(c.ID)] = u
	}
	return s, nil
}

// Add implements [CredentialStore].
func (s *FileCredentialStore) Add(_ context.Context, c *Credential) error {
	return s.add(c, false)
}

// AddFirst implements [FirstCredentialAdder].
func (s *FileCredentialStore) AddFirst(_ context.Context, c *Credential) error {
	return s.add(c, true)
}

func (s *FileCredentialStore) add(c *Credential, first bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.t.add(c, first); err != nil {
		return err
	}
	if err := s.persist(); err != nil {
		s.t.remove(c.UserHandle, c.ID)
		return err
	}
	return nil
}

// List implements [CredentialStore].
func (s *FileCredentialStore) List(_ context.Context, user []byte) ([]Credential, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.list(user), nil
}

// Get implements [CredentialStore].
func (s *FileCredentialStore) Get(_ context.Context, user, id []byte) (*Credential, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.get(user, id)
}

// UpdateCounter implements [CredentialStore].
func (s *FileCredentialStore) UpdateCounter(_ context.Context, user, id []byte, count uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, err := s.t.updateCounter(user, id, count)
	if err != nil {
		return err
	}
	if prev == count {
		return nil // counterless credential: nothing changed
	}
	if err := s.persist(); err != nil {
		s.t.find(user, id).SignCount = prev
		return err
	}
	return nil
}

// persist writes the table atomically. Callers hold s.mu.
func (s *FileCredentialStore) persist() error {
	all := s.t.all()
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt.Equal(all[j].CreatedAt) {
			return all[i].CreatedAt.Before(all[j].CreatedAt)
		}
		return bytes.Compare(all[i].ID, all[j].ID) < 0
	})
	data, err := json.MarshalIndent(credentialFile{Version: fileFormatVersion, Credentials: all}, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: encoding credentials: %v", ErrUnavailable, err)
	}
	if err := fsutil.WriteFileAtomic(s.path, append(data, '\n'), 0o600, false); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrUnavailable, s.path, err)
	}
	return nil
}
