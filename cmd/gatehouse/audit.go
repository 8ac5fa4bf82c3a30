package main

import "github.com/gatehouse-dev/gatehouse/internal/auditcli"

var _ = register(command{
	Name:    "audit verify",
	Args:    "[-pubkey FILE] [-checkpoints FILE] LOG...",
	Summary: "verify the hash chain (and signed checkpoints) of audit logs",
	Run: func(s *stdio, c *command, args []string) int {
		return auditcli.Run("gatehouse "+c.Name, args, s.out, s.err)
	},
})
