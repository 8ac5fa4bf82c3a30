package gatehouse_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// rtApprover is a misbehaving Approver: each hook may panic, return a nil
// context, or change the request it is shown.
type rtApprover struct {
	fakeApprover
	panicCheck, panicRequires, nilUserCtx, nilDefCtx bool
	rewrite                                          func(*mcp.CallToolRequest)
}

func (a rtApprover) Requires(tool string) bool {
	if a.panicRequires {
		panic("requires")
	}
	return tool == "delete_file"
}

func (a rtApprover) WithUserID(ctx context.Context, _ string) context.Context {
	if a.nilUserCtx {
		return nil
	}
	return ctx
}

func (a rtApprover) WithDefinition(ctx context.Context, _ string) context.Context {
	if a.nilDefCtx {
		return nil
	}
	return ctx
}

func (a rtApprover) CheckCall(_ context.Context, req *mcp.CallToolRequest) (string, error) {
	if a.panicCheck {
		panic("check")
	}
	if a.rewrite != nil {
		a.rewrite(req)
	}
	return "", nil
}

// TestRedTeam21_MisbehavingApprover: an Approver that panics or hands back
// a nil context never lets delete_file run and never takes the server
// down; the next call is still served.
func TestRedTeam21_MisbehavingApprover(t *testing.T) {
	p := mustPolicy(t, approvalPolicy)
	for name, a := range map[string]rtApprover{
		"CheckCall panics":           {panicCheck: true},
		"Requires panics":            {panicRequires: true},
		"WithUserID returns nil":     {nilUserCtx: true},
		"WithDefinition returns nil": {nilDefCtx: true},
	} {
		t.Run(name, func(t *testing.T) {
			runs := 0
			g := mustGuard(t, p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: a, ForUnauthenticated: true}})
			ct := serve(t, g, func(s *mcp.Server) {
				textTool(s, "delete_file", func(map[string]any) string { return "deleted" }, &runs)
				textTool(s, "echo", func(map[string]any) string { return "echo" }, nil)
			})
			c := dialRaw(t, ct, "2025-06-18")
			res := c.callTool(1, "delete_file", map[string]any{"path": "a"})
			if runs != 0 || rpcErr(res) == nil {
				t.Fatalf("delete_file: runs %d, %v", runs, res)
			}
			if res := c.callTool(2, "echo", map[string]any{}); rpcErr(res) != nil && !a.panicRequires {
				t.Errorf("the next call failed: %v", res)
			}
		})
	}
}

// TestRedTeam21_ApproverCannotRewriteTheCall: an Approver that changes the
// request while checking it (arguments or tool name, in place or by
// replacing them) does not change what runs: the handler gets the call
// the policy, the scopes and the approval were decided on.
func TestRedTeam21_ApproverCannotRewriteTheCall(t *testing.T) {
	p := mustPolicy(t, approvalPolicy)
	for name, rw := range map[string]func(*mcp.CallToolRequest){
		"replace arguments": func(r *mcp.CallToolRequest) { r.Params.Arguments = json.RawMessage(`{"path":"/etc/shadow"}`) },
		"write arguments in place": func(r *mcp.CallToolRequest) {
			copy(r.Params.Arguments, `{"path":"b"}`)
		},
		"replace params": func(r *mcp.CallToolRequest) {
			r.Params = &mcp.CallToolParamsRaw{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/etc/shadow"}`)}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			g := mustGuard(t, p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: rtApprover{rewrite: rw}, ForUnauthenticated: true}})
			ct := serve(t, g, func(s *mcp.Server) {
				textTool(s, "delete_file", func(a map[string]any) string { got = append(got, a["path"].(string)); return "deleted" }, nil)
			})
			res := dialRaw(t, ct, "2025-06-18").callTool(1, "delete_file", map[string]any{"path": "a"})
			if len(got) != 1 || got[0] != "a" {
				t.Fatalf("the handler got %q, want the approved path a: %v", got, res)
			}
		})
	}
}

// TestRedTeam21_DisguisedNilApprover: a nil *approvalmcp.Server embedded in
// a struct is not caught by New's typed-nil check (the struct is not nil),
// and Install registers its methods without dereferencing it. Every call
// that needs it then fails inside the Approver: the guard recovers, the
// tool does not run, and the server keeps serving.
func TestRedTeam21_DisguisedNilApprover(t *testing.T) {
	type wrapped struct{ *approvalmcp.Server }
	p := mustPolicy(t, approvalPolicy)
	g, err := gatehouse.New(p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: wrapped{}, ForUnauthenticated: true}})
	if err != nil {
		return // refused at New: fine too
	}
	runs := 0
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "delete_file", func(map[string]any) string { return "deleted" }, &runs)
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i := range 2 {
		if res := c.callTool(i, "delete_file", map[string]any{"path": "a"}); rpcErr(res) == nil || runs != 0 {
			t.Fatalf("call %d: runs %d, %v", i, runs, res)
		}
	}
}

// TestRedTeam21_RootImportsUnderEveryBuildConstraint: go list sees only
// the files of this GOOS and build tags, so a root (or in-module
// dependency) file behind "//go:build windows" or a custom tag could link
// go-webauthn, go-redis or time/tzdata unseen by TestRootImports. Every
// non-test file of every in-module package the root links is parsed here,
// whatever its build constraint, and none may import one of rootForbidden.
func TestRedTeam21_RootImportsUnderEveryBuildConstraint(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}", ".", "./examples/minimal").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, ok := strings.Cut(line, "\t")
		if !ok || (path != module && !strings.HasPrefix(path, module+"/")) {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			seen++
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range rootForbidden {
					if strings.HasPrefix(p, bad) {
						t.Errorf("%s (package %s) imports %s", f, path, p)
					}
				}
			}
		}
	}
	if seen < 20 {
		t.Fatalf("parsed only %d files: the listing is wrong", seen)
	}
}

// TestRedTeam21_ListCursorNamesNoHiddenTool: go-sdk's nextCursor is the
// gob of the page's last tool name; a page that ended with a tool hidden
// from the caller (by scope or policy) sent its name. Every cursor now
// names a listed tool, and walking the pages lists exactly the visible
// tools, once each.
func TestRedTeam21_ListCursorNamesNoHiddenTool(t *testing.T) {
	sp, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "admin_reset", Requirement: scope.Requirement{All: []string{"admin"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: pages}
spec:
  allowed_tools: [admin_reset, deploy, status, zeta]
`)
	for _, size := range []int{1, 2, 3} {
		g := mustGuard(t, pol, &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{Policy: sp}})
		s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{PageSize: size})
		// admin_reset: hidden by scope; secret_x: hidden by policy.
		for _, n := range []string{"admin_reset", "alpha_secret", "deploy", "secret_x", "status", "zeta"} {
			textTool(s, n, func(map[string]any) string { return "x" }, nil)
		}
		g.Install(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, ct, "2025-06-18")
		var names []string
		cursor := ""
		for i := 0; i < 20; i++ {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			res, _ := c.request(i, "tools/list", params)["result"].(map[string]any)
			tools, _ := res["tools"].([]any)
			for _, tl := range tools {
				names = append(names, tl.(map[string]any)["name"].(string))
			}
			cursor, _ = res["nextCursor"].(string)
			if raw, _ := base64.URLEncoding.DecodeString(cursor); strings.Contains(string(raw), "admin") || strings.Contains(string(raw), "secret") {
				t.Errorf("page size %d: cursor names a hidden tool: %q", size, raw)
			}
			if cursor == "" {
				break
			}
		}
		ss.Close()
		if strings.Join(names, " ") != "deploy status zeta" {
			t.Errorf("page size %d: listed %v, want deploy status zeta", size, names)
		}
	}
}
