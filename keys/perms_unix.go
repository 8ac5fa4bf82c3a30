//go:build unix

package keys

// unixPerms: the file mode's group and other bits mean something here.
const unixPerms = true
