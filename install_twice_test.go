package gatehouse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInstallTwiceOnOneServerPanics: the same Guard installed twice on one
// server decided every call twice (each layer charged the budget and rate
// limits, and the inner layer hid AddTool's marks from the outer one's
// listing, so its asks were refused); Install now refuses it as it refuses
// other misconfigurations. Near misses: one Guard on two servers, two
// Guards on one server.
func TestInstallTwiceOnOneServerPanics(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, basePolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	g.Install(s)
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		g.Install(s)
		return "no panic"
	}()
	if !strings.Contains(msg, "already installed on this server") {
		t.Fatalf("second Install on one server: %s", msg)
	}
	g.Install(mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil))
	mustGuard(t, mustPolicy(t, basePolicy), nil).Install(s)
}
