package gatehouse_test

import (
	"os"
	"strings"
	"testing"
)

// TestCoreModuleWithoutOTel: OpenTelemetry lives in the otel module only
// (DESIGN §1); users of the core module never download it.
func TestCoreModuleWithoutOTel(t *testing.T) {
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "go.opentelemetry.io") {
			t.Errorf("%s names go.opentelemetry.io: the core module must not require OpenTelemetry", name)
		}
	}
	mod, err := os.ReadFile("otel/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "module github.com/gatehouse-dev/gatehouse/otel\n") || !strings.Contains(string(mod), "replace github.com/gatehouse-dev/gatehouse => ../") {
		t.Errorf("otel/go.mod is not the otel module replacing the core with ../:\n%s", mod)
	}
}
