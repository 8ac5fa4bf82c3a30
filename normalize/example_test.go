package normalize_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

func ExampleName() {
	fmt.Println(normalize.Name("ＲＥＡＤ\u200b_ﬁle "))
	fmt.Println(normalize.Name("\u202edelete_file"))
	fmt.Println(normalize.Name("rеad_file") == "read_file") // Cyrillic е
	// Output:
	// read_file
	// delete_file
	// false
}

func ExamplePathEnv_Clean() {
	e, _ := normalize.NewPathEnv("/home/agent", "/srv/app")
	fmt.Println(e.Clean("~/.ssh"))
	fmt.Println(e.Clean("$HOME//.AWS/./credentials"))
	// Output:
	// /home/agent/.ssh
	// /home/agent/.aws/credentials
}
