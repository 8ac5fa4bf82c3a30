package confine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/confine"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// A view of a directory that holds a protected .env and a symlink to it.
func Example() {
	dir, _ := os.MkdirTemp("", "confine-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("PASSWORD=x\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o600)
	os.Symlink(".env", filepath.Join(dir, "settings"))
	p, _ := policy.ParseWith([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: x}\nspec:\n  protected_paths: [.env]\n"),
		&policy.Options{Home: dir, WorkDir: dir})

	view, err := confine.New(dir, p, nil)
	if err != nil {
		panic(err)
	}
	defer view.Close()
	data, _ := view.ReadFile("notes.txt")
	fmt.Printf("notes.txt: %q\n", data)
	_, err = view.ReadFile("settings")
	fmt.Println("settings (a symlink to .env) protected:", errors.Is(err, confine.ErrProtected))
	// Output:
	// notes.txt: "hello\n"
	// settings (a symlink to .env) protected: true
}
