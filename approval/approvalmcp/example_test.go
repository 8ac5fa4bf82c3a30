package approvalmcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

func ExampleAnnotate() {
	tool := &mcp.Tool{Name: "delete_resource"}
	approvalmcp.Annotate(tool, approval.ClassCrossPlatform)
	out, _ := json.Marshal(tool.Meta)
	fmt.Println(string(out))
	// Output: {"io.modelcontextprotocol/verified-approval":{"authenticatorClass":"cross-platform","required":"verified"}}
}

func ExampleRPCError() {
	// err as returned by Gate.Verify or approvalmcp.Server.VerifyCall:
	err := fmt.Errorf("verify: %w", &approval.Error{Reason: approval.ReasonArgumentHashMismatch})
	rpc := approvalmcp.RPCError(err)
	out, _ := json.Marshal(rpc)
	fmt.Println(string(out))
	// Output: {"code":-32001,"message":"Approval evidence does not match the arguments of this call","data":{"reason":"argument_hash_mismatch"}}
}

func ExampleAddCapability() {
	caps := &mcp.ServerCapabilities{}
	approvalmcp.AddCapability(caps)
	out, _ := json.Marshal(caps)
	fmt.Println(string(out))
	// Output: {"extensions":{"verifiedApproval":{}}}
}
