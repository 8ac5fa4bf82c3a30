package scope_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/scope"
)

func Example() {
	p, err := scope.Parse([]byte(`
apiVersion: gatehouse.dev/v1alpha1
kind: ToolScopes
tools:
  - name: deploy
    all: [deploy:write]
    when:
      - args: {env: prod}
        all: [deploy:prod]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := p.Check("deploy", []byte(`{"env":"prod"}`), []string{"deploy:write"})
	fmt.Println(d.Allowed, d.Required, d.Missing)

	_, err = scope.Parse([]byte("apiVersion: gatehouse.dev/v1alpha1\nkind: ToolScopes\ntools:\n  - name: deploy\n    all: [\"deploy prod\"]\n"))
	fmt.Println(err)
	// Output:
	// false [deploy:write deploy:prod] [deploy:prod]
	// scope: line 5, column 11: "deploy prod" is not an RFC 6749 scope-token: byte 6 (0x20) is outside %x21 / %x23-5B / %x5D-7E
}
