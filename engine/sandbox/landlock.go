package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// HelperArg is the hidden first argument that makes the cockpit binary act as the Landlock
// helper: restrict itself, then exec the command (Go has no pre-exec hook).
const HelperArg = "__cockpit-landlock-exec"

// landlockPolicy is what the parent hands the helper.
type landlockPolicy struct {
	Workspace string   `json:"workspace"`
	Argv      []string `json:"argv"`
}

// Landlock restricts the command with the Landlock LSM: system directories read and
// execute, the workspace read-write (not the host's /tmp: point TMPDIR into the workspace),
// /dev/null usable, nothing else of the file system, and TCP bind and connect denied. It
// needs ABI 4 or later. Landlock's network rules cover TCP only, so the helper also installs
// a seccomp filter that makes socket(2) and io_uring_setup(2) fail: no UDP, no raw or
// netlink socket, no Unix socket to a daemon. Where that filter cannot be built the backend
// refuses ("landlock cannot block UDP") rather than run with the network open.
type Landlock struct {
	Self string // the cockpit binary (default: os.Executable)
}

// Name implements Backend.
func (Landlock) Name() string { return "landlock" }

// ABI returns the kernel's Landlock ABI version (0 when unavailable).
func ABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// Describe implements Backend; it never claims more network isolation than it applies.
func (Landlock) Describe() string {
	abi := ABI()
	net := "network: no sockets (seccomp denies socket(2), so UDP too; Landlock denies TCP bind/connect)"
	switch {
	case socketsBlockable() != nil:
		net = "network: unusable here (" + socketsBlockable().Error() + ")"
	case abi < 4:
		net = "network: unusable (ABI < 4)"
	}
	return fmt.Sprintf("landlock ABI %d: filesystem (system dirs read-only, workspace read-write); %s", abi, net)
}

func (l Landlock) self() (string, error) {
	if l.Self != "" {
		return l.Self, nil
	}
	return os.Executable()
}

// Probe implements Backend.
func (l Landlock) Probe(ctx context.Context) error {
	if abi := ABI(); abi < 4 {
		return fmt.Errorf("landlock ABI %d cannot restrict the network (needs 4)", abi)
	}
	if err := socketsBlockable(); err != nil {
		return err
	}
	self, err := l.self()
	if err != nil {
		return err
	}
	return probe(ctx, l, self, probePath)
}

// Command implements Backend: the cockpit binary re-executed as the helper.
func (l Landlock) Command(s Spec) (*exec.Cmd, error) {
	self, err := l.self()
	if err != nil {
		return nil, err
	}
	pol, err := json.Marshal(landlockPolicy{Workspace: s.Workspace, Argv: s.Argv})
	if err != nil {
		return nil, err
	}
	return exec.Command(self, HelperArg, string(pol)), nil
}

// RunHelper is the helper's entry point; main calls it when os.Args[1] is HelperArg. It
// never returns on success (the process becomes the command).
func RunHelper(args []string) error {
	if len(args) < 1 {
		return errors.New("landlock helper: no policy")
	}
	var pol landlockPolicy
	if err := json.Unmarshal([]byte(args[0]), &pol); err != nil {
		return fmt.Errorf("landlock helper: %w", err)
	}
	if len(pol.Argv) == 0 || pol.Workspace == "" {
		return errors.New("landlock helper: empty command or workspace")
	}
	if ABI() < 4 {
		return fmt.Errorf("landlock helper: ABI %d cannot restrict the network", ABI())
	}
	path, err := exec.LookPath(pol.Argv[0])
	if err != nil {
		return fmt.Errorf("landlock helper: %w", err)
	}
	err = landlock.V11.BestEffort().Restrict(
		landlock.RODirs("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32").IgnoreIfMissing(),
		landlock.ROFiles("/etc/ld.so.cache").IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/urandom").IgnoreIfMissing(),
		landlock.RWDirs(pol.Workspace),
	)
	if err != nil {
		return fmt.Errorf("landlock helper: restrict: %w", err)
	}
	if err := blockSockets(); err != nil {
		return fmt.Errorf("landlock helper: %w", err)
	}
	return syscall.Exec(path, pol.Argv, os.Environ())
}
