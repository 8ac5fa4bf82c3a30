package approvalclient_test

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
)

// ExampleWrap branches on the §4.10 reason of a -32001 response.
func ExampleWrap() {
	resp := &jsonrpc.Error{Code: -32001, Message: "Approval challenge expired", Data: []byte(`{"reason":"challenge_expired"}`)}
	err := approvalclient.Wrap(resp)
	if errors.Is(err, approval.ErrChallengeExpired) {
		fmt.Println("request a new challenge and ask the user again")
	}
	// Output: request a new challenge and ask the user again
}
