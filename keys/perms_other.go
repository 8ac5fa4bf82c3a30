//go:build !unix

package keys

const unixPerms = false
