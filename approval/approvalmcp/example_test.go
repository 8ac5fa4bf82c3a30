package approvalmcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

// Require makes the Gate require approval for the tool and sets the §4.2
// annotation clients read from tools/list; add the tool to the server after.
func ExampleServer_Require() {
	gate, err := approval.New(approval.Config{ServerID: "urn:uuid:6d3c1f9e-example", RPID: "localhost", Origins: []string{"http://localhost:8787"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, _ := approvalmcp.New(gate, nil)
	tool := &mcp.Tool{Name: "delete_resource"}
	if err := srv.Require(tool, approval.ToolPolicy{Class: approval.ClassCrossPlatform}); err != nil {
		fmt.Println(err)
		return
	}
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
