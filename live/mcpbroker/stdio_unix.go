//go:build unix

package mcpbroker

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// inGroup starts cmd as the leader of a new process group.
func inGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// endGroup ends the process group pgid: SIGTERM, up to grace for it to go, then SIGKILL.
func endGroup(pgid int, grace time.Duration) {
	if pgid <= 1 || syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // the group is gone already
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}
