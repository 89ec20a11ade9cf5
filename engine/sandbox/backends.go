package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// None runs commands with no OS isolation (only the policy checks before it).
type None struct{}

// Name implements Backend.
func (None) Name() string { return "none" }

// Describe implements Backend.
func (None) Describe() string { return "none: no OS isolation (policy checks only)" }

// Probe implements Backend.
func (None) Probe(context.Context) error { return nil }

// Command implements Backend.
func (None) Command(s Spec) (*exec.Cmd, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("empty argv")
	}
	path, err := exec.LookPath(s.Argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, s.Argv[1:]...)
	cmd.Args[0] = s.Argv[0]
	return cmd, nil
}

// Bwrap is bubblewrap: new namespaces for everything (network included), /usr read-only
// with the usr-merge symlinks, a private /dev, /proc and /tmp, and only the workspace bound
// read-write. Nothing else of the host (home, /etc, /root) is visible.
type Bwrap struct {
	Path string // the bwrap binary (default: looked up on PATH)
}

// Name implements Backend.
func (Bwrap) Name() string { return "bwrap" }

// Describe implements Backend.
func (Bwrap) Describe() string {
	return "bwrap: namespaces (network, pid, ipc, uts, user), /usr read-only, workspace read-write, nothing else of the host"
}

func (b Bwrap) bin() (string, error) { return lookup(b.Path, "bwrap") }

// Args builds the bwrap command line for spec.
func (b Bwrap) Args(bin string, s Spec) []string {
	args := []string{bin, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL", "--clearenv",
		"--ro-bind", "/usr", "/usr"}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib64", "/lib32"} {
		if target, err := os.Readlink(d); err == nil {
			args = append(args, "--symlink", target, d)
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			args = append(args, "--ro-bind", d, d)
		}
	}
	args = append(args, "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
		"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", s.Workspace, s.Workspace, "--chdir", s.Dir)
	for _, kv := range s.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			args = append(args, "--setenv", k, v)
		}
	}
	return append(append(args, "--"), s.Argv...)
}

// Probe implements Backend.
func (b Bwrap) Probe(ctx context.Context) error { return wrapperProbe(ctx, b, probePath) }

// Command implements Backend.
func (b Bwrap) Command(s Spec) (*exec.Cmd, error) { return wrapperCommand(b, s) }

// Firejail is firejail with no network, a read-only host, a read-write workspace and a
// blacklist of the forbidden paths.
type Firejail struct {
	Path      string
	Forbidden []string
}

// Name implements Backend.
func (Firejail) Name() string { return "firejail" }

// Describe implements Backend.
func (Firejail) Describe() string {
	return "firejail: no network, host read-only, workspace read-write, forbidden paths blacklisted, seccomp"
}

// Args builds the firejail command line for spec.
func (f Firejail) Args(bin string, s Spec) []string {
	args := []string{bin, "--quiet", "--noprofile", "--net=none", "--private-dev", "--private-tmp", "--nonewprivs",
		"--caps.drop=all", "--seccomp", "--read-only=/", "--read-write=" + s.Workspace}
	for _, p := range f.Forbidden {
		args = append(args, "--blacklist="+p)
	}
	return append(append(args, "--"), s.Argv...)
}

func (f Firejail) bin() (string, error) { return lookup(f.Path, "firejail") }

// Probe implements Backend.
func (f Firejail) Probe(ctx context.Context) error { return wrapperProbe(ctx, f, probePath) }

// Command implements Backend.
func (f Firejail) Command(s Spec) (*exec.Cmd, error) { return wrapperCommand(f, s) }

// Docker runs the command in a throwaway container: no network, a read-only root, the
// workspace mounted at the same path, capped memory and CPU.
type Docker struct {
	Path  string
	Image string // default debian:bookworm-slim
}

// Name implements Backend.
func (Docker) Name() string { return "docker" }

// Describe implements Backend.
func (d Docker) Describe() string {
	return "docker: container " + d.image() + ", no network, read-only root, workspace read-write, 512 MB, 1 CPU"
}

func (d Docker) image() string {
	if d.Image != "" {
		return d.Image
	}
	return "debian:bookworm-slim"
}

// Args builds the docker command line for spec.
func (d Docker) Args(bin string, s Spec) []string {
	args := []string{bin, "run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL",
		"--security-opt", "no-new-privileges", "--memory", "512m", "--cpus", "1", "-v", s.Workspace + ":" + s.Workspace + ":rw",
		"-w", s.Dir}
	for _, kv := range s.Env {
		args = append(args, "-e", kv)
	}
	return append(append(args, d.image()), s.Argv...)
}

func (d Docker) bin() (string, error) { return lookup(d.Path, "docker") }

// Probe implements Backend: a real container must start (a client with no daemon fails).
func (d Docker) Probe(ctx context.Context) error { return wrapperProbe(ctx, d, nil) }

// Command implements Backend.
func (d Docker) Command(s Spec) (*exec.Cmd, error) { return wrapperCommand(d, s) }

// wrapper is a backend that runs the command as the arguments of another program.
type wrapper interface {
	Backend
	bin() (string, error)
	Args(bin string, s Spec) []string
}

func wrapperCommand(w wrapper, s Spec) (*exec.Cmd, error) {
	bin, err := w.bin()
	if err != nil {
		return nil, err
	}
	a := w.Args(bin, s)
	return exec.Command(a[0], a[1:]...), nil
}

func wrapperProbe(ctx context.Context, w wrapper, env []string) error {
	bin, err := w.bin()
	if err != nil {
		return err
	}
	return probe(ctx, w, bin, env)
}

func lookup(path, name string) (string, error) {
	if path != "" {
		return path, nil
	}
	return exec.LookPath(name)
}

// probePath is the environment a probe's `true` runs with.
var probePath = []string{"PATH=/usr/bin:/bin"}

// probe runs `true` through b in a throwaway workspace and requires exit status 0 within
// 20 s; bin names the program in the error.
func probe(ctx context.Context, b Backend, bin string, env []string) error {
	ws, err := os.MkdirTemp("", "cockpit-probe")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	out := Run(ctx, b, Spec{Argv: []string{"true"}, Dir: ws, Workspace: ws, Env: env, Timeout: 20 * time.Second})
	if out.Status != "ok" {
		msg := strings.TrimSpace(out.Stderr)
		if msg == "" {
			msg = out.Error
		}
		return fmt.Errorf("%s does not run here: %s", filepath.Base(bin), msg)
	}
	return nil
}

// Choose picks the backend: the configured one (it must probe), or with "auto" the first of
// Docker, Bubblewrap, Firejail, Landlock that probes. None is returned only when asked for
// by name; otherwise no usable backend is an error (the caller decides whether the policy
// allows running without one).
func Choose(ctx context.Context, name string, candidates []Backend) (Backend, error) {
	var errs []string
	for _, b := range candidates {
		if name != "auto" && b.Name() != name {
			continue
		}
		if err := b.Probe(ctx); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", b.Name(), err))
			continue
		}
		return b, nil
	}
	if name == "none" {
		return None{}, nil
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no sandbox backend named %q", name)
	}
	return nil, fmt.Errorf("no usable sandbox: %s", strings.Join(errs, "; "))
}
