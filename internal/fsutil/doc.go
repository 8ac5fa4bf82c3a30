// Package fsutil holds gatehouse's file helpers: the one atomic file write
// (temporary file, fsync, rename, fsync of the directory) and exclusive
// advisory locks that give a file a single writer across processes (flock
// on unix, LockFileEx on Windows).
//
// # Security
//
// An atomic write never leaves a torn file: a crash leaves the old content
// or the new one, and the rename is made durable by syncing the directory.
// A lock is advisory: it keeps gatehouse's own writers (two processes that
// open the same audit log or credential file) apart, not a hostile process
// with write access to the file.
//
// # Concurrency
//
// The functions are safe for concurrent use; a [Lock] is released once, by
// its Close.
package fsutil
