//go:build !unix

package mcpbroker

import (
	"os/exec"
	"time"
)

// inGroup does nothing where there are no process groups.
func inGroup(*exec.Cmd) {}

// endGroup does nothing where there are no process groups.
func endGroup(int, time.Duration) {}
