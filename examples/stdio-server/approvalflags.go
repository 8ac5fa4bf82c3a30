package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

// approvalFlags are the -approval options.
type approvalFlags struct {
	on                                  bool
	serverID, rpID, origin, credentials string
	linkTTL                             time.Duration
	enrollAll                           bool     // links also for users who have a passkey
	origins                             []string // parsed from origin by run
}

// parseOrigins splits a comma-separated -origin value; each must be a bare
// http(s) origin such as http://localhost:8080.
func parseOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("-origin: %q is not an origin like http://localhost:8080", o)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}

// server builds the SEP-2672 gate for -approval. Over HTTP passkeys are
// enrolled only through the one-time links (out of band), so that an MCP
// client cannot enroll a passkey of its own; over stdio the client enrolls
// the user's first passkey.
func (a approvalFlags) server(enroll approvalmcp.EnrollmentPolicy) (*approval.Gate, *approvalmcp.Server, error) {
	var creds approval.CredentialStore
	if a.credentials != "" {
		fs, err := approval.OpenFileCredentialStore(a.credentials, nil)
		if err != nil {
			return nil, nil, err
		}
		creds = fs
	}
	gate, err := approval.New(approval.Config{ServerID: a.serverID, RPID: a.rpID, Origins: a.origins}, &approval.Options{Credentials: creds})
	if err != nil {
		return nil, nil, err
	}
	s, err := approvalmcp.New(gate, &approvalmcp.Options{Enrollment: enroll})
	return gate, s, err
}
