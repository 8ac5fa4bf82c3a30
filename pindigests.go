package gatehouse

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerToolDigests returns the [ToolDigest] of every tool s lists, by
// exact name, exactly as the Guard's pin stage digests them (the server's
// own definitions, not a client's decoding of them): the digests to review
// and then pin with PinOptions.Digests, for example from a file checked in
// beside the server and compared in a test, so that a changed definition
// fails the build before it fails a call. Call it before Install: after
// it, tools/list answers with the Guard's view (tools the policy hides
// left out, changed ones replaced by a notice).
func ServerToolDigests(ctx context.Context, s *mcp.Server) (map[string]string, error) {
	var list mcp.MethodHandler
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		list = next
		return next // the server's handler chain is left as it is
	})
	st, _ := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("gatehouse: ServerToolDigests: %w", err)
	}
	defer ss.Close()
	out := map[string]string{}
	err = eachListedTool(ctx, list, ss, func(t *mcp.Tool) (bool, error) {
		d, err := ToolDigest(t)
		if err != nil {
			return false, err
		}
		out[t.Name] = d
		if len(out) > maxIndexTools {
			return false, fmt.Errorf("the server lists more than %d tools", maxIndexTools)
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("gatehouse: ServerToolDigests: %w", err)
	}
	return out, nil
}
