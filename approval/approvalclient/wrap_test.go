package approvalclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

func rpcErr(code int64, reason string) error {
	data, _ := json.Marshal(map[string]string{"reason": reason})
	return fmt.Errorf("calling %q: %w", "tools/call", &jsonrpc.Error{Code: code, Message: "m", Data: data})
}

// TestWrapOnlyApprovalReasons: every §4.10 reason (and
// enrollment_not_permitted) becomes an *approval.Error; an AIP policy
// denial, which shares -32001 with a free-text reason, does not, and
// neither does another code or a missing reason.
func TestWrapOnlyApprovalReasons(t *testing.T) {
	for _, r := range append(append([]approval.Reason(nil), approval.Reasons...), approvalmcp.ReasonEnrollmentNotPermitted) {
		var ae *approval.Error
		if err := approvalclient.Wrap(rpcErr(approval.ErrorCode, string(r))); !errors.As(err, &ae) || ae.Reason != r {
			t.Errorf("reason %s: %v", r, err)
		}
	}
	for name, in := range map[string]error{
		"policy denial":       rpcErr(approval.ErrorCode, "Tool not in allowed_tools list"),
		"near miss":           rpcErr(approval.ErrorCode, "Missing_Evidence"),
		"empty reason":        rpcErr(approval.ErrorCode, ""),
		"other code":          rpcErr(jsonrpc.CodeInvalidParams, string(approval.ReasonMissingEvidence)),
		"not a jsonrpc error": errors.New("missing_evidence"),
	} {
		var ae *approval.Error
		if err := approvalclient.Wrap(in); errors.As(err, &ae) || err != in {
			t.Errorf("%s: wrapped as %v", name, err)
		}
	}
	if approvalclient.Wrap(nil) != nil {
		t.Error("Wrap(nil) != nil")
	}
}

// TestListingBounded: a server that pages tools/list forever gets an error,
// not an endless walk with a growing cache.
func TestListingBounded(t *testing.T) {
	for _, c := range []struct {
		name     string
		perPage  int
		wantText string
	}{
		{"pages", 1, "more than 1000 pages"},
		{"tools", 600, "more than 10000 tools"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "endless", Version: "1"}, nil)
			pages := 0
			s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method != "tools/list" {
						return next(ctx, method, req)
					}
					pages++
					res := &mcp.ListToolsResult{NextCursor: fmt.Sprint("p", pages)}
					for i := 0; i < c.perPage; i++ {
						res.Tools = append(res.Tools, &mcp.Tool{Name: fmt.Sprintf("t%d_%d", pages, i), InputSchema: map[string]any{"type": "object"}})
					}
					return res, nil
				}
			})
			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
			ac, err := approvalclient.New(client, approvaltest.New("https://gatehouse.test", nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := client.Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			_, err = ac.CallTool(context.Background(), cs, &mcp.CallToolParams{Name: "x"})
			if err == nil || !strings.Contains(err.Error(), c.wantText) {
				t.Fatalf("got %v, want an error saying %q", err, c.wantText)
			}
		})
	}
}
