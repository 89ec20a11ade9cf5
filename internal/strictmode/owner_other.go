//go:build !unix

package strictmode

import "io/fs"

// ownerOf cannot tell a file's owner on this system: every file counts as someone else's,
// so nothing is trusted (fail closed).
func ownerOf(fs.FileInfo) (int, bool) { return -1, false }
