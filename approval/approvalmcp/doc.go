// Package approvalmcp serves an [approval.Gate] over MCP with the go-sdk:
// the three SEP-2672 methods as custom methods, the tool annotation, the
// capability, evidence verification on tools/call, and the -32001 errors.
// The root gatehouse package wires it into its middleware (a *[Server] is
// the gatehouse.Approver of Options.Approval.Server: the root package
// defines that interface so that it links no WebAuthn code itself); it can
// also be used on its own.
//
// Wiring (what a server, or the root middleware, does):
//
//	gate, _ := approval.New(approval.Config{ServerID: id, RPID: host, Origins: origins}, nil)
//	srv := approvalmcp.New(gate, nil)
//	caps := &mcp.ServerCapabilities{}
//	approvalmcp.AddCapability(caps)                       // §4.3, initialize and server/discover
//	server := mcp.NewServer(impl, &mcp.ServerOptions{Capabilities: caps})
//	_ = srv.Register(server)                              // approval/enroll/begin, .../finish, approval/challenge/create
//	tool := &mcp.Tool{Name: "delete_file", InputSchema: schema}
//	_ = srv.Require(tool, approval.ToolPolicy{})           // §4.2 _meta annotation + gate policy
//	mcp.AddTool(server, tool, handler)
//	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
//		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
//			ctx = approvalmcp.WithUser(ctx, approval.NewUser(agentIdentity(req)))
//			if call, ok := req.(*mcp.CallToolRequest); ok && gate.Requires(call.Params.Name) {
//				if _, err := srv.VerifyCall(ctx, call); err != nil {
//					return nil, approvalmcp.RPCError(err) // -32001, data.reason; the tool does not run
//				}
//			}
//			return next(ctx, method, req)
//		}
//	})
//
// The user of every method comes from Options.User, by default the
// [approval.User] a middleware stored with [WithUser]; a request without one
// is refused.
//
// # Security
//
// The MCP client is the party an approval guards against, so enrollment over
// MCP is limited by [Options.Enrollment]: by default ([EnrollFirstOnly]) a
// user may enroll over MCP only while no credential is enrolled for them, so
// that a client cannot add a software passkey of its own and approve its
// own calls. [EnrollOutOfBand] closes the enrollment methods (enroll through
// the Gate's Go API, e.g. a page the server hosts); [EnrollOpen] is SEP-2672
// as written. A refused enrollment is -32001 with data.reason
// "enrollment_not_permitted".
//
// Errors leave as [*jsonrpc.Error]: approval rejections as -32001 with
// data.reason and a fixed message per reason ([RPCError]); invalid params as
// -32602; anything else (store outages included) as -32603 with a generic
// message, so store details never reach clients. [Server.VerifyCall] reads
// the arguments exactly as received (params.arguments, raw), never a
// decoded or defaulted form.
//
// # Concurrency
//
// A Server is safe for concurrent use.
package approvalmcp
