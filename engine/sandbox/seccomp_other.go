//go:build !(linux && (amd64 || arm64))

package sandbox

import (
	"errors"
	"runtime"
)

func blockSockets() error { return socketsBlockable() }

// socketsBlockable: without the seccomp filter Landlock cannot keep UDP in, so it refuses.
func socketsBlockable() error {
	return errors.New("landlock cannot block UDP: no seccomp socket filter for " + runtime.GOOS + "/" + runtime.GOARCH)
}
