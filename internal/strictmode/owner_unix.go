//go:build unix

package strictmode

import (
	"io/fs"
	"syscall"
)

// ownerOf returns the uid that owns fi.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}
