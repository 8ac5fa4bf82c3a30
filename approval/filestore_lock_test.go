package approval_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/approval"
)

const credChildEnv = "GATEHOUSE_CREDFILE_LOCK_CHILD"

// TestFileCredentialStoreSingleWriterAcrossProcesses (fault 6): while one
// process has the credential file open, a second process's
// OpenFileCredentialStore fails with ErrLocked naming the file, so neither
// loses the other's enrollments; after Close the file opens again with every
// credential. The second process is this test binary run again.
func TestFileCredentialStoreSingleWriterAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "creds.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCredFileLockChild$")
	cmd.Env = append(os.Environ(), credChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "open\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	_, err := approval.OpenFileCredentialStore(path, nil)
	if !errors.Is(err, approval.ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second process: %v, want ErrLocked naming %s", err, path)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	s, err := approval.OpenFileCredentialStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l, err := s.List(ctx, []byte("child")); err != nil || len(l) != 1 {
		t.Fatalf("the child's enrollment: %v, %v", l, err)
	}
}

// TestCredFileLockChild is the child of
// TestFileCredentialStoreSingleWriterAcrossProcesses; a no-op otherwise.
func TestCredFileLockChild(t *testing.T) {
	path := os.Getenv(credChildEnv)
	if path == "" {
		return // not the child
	}
	s, err := approval.OpenFileCredentialStore(path, nil)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	c := &approval.Credential{ID: []byte("c1"), UserHandle: []byte("child"), PublicKey: []byte("cose")}
	if err := s.Add(context.Background(), c); err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("open\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	s.Close()
	os.Exit(0)
}
