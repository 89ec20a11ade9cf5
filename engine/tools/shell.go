package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/engine"
	"cockpit/engine/safety"
	"cockpit/engine/sandbox"
	"cockpit/live/jsonv"
)

// Shell runs one allowed command at a time: argv without a shell, argv[0] exactly in the
// policy's allowed_commands, every path inside the workspace and outside forbidden_paths,
// a clean environment, bounded time and output — inside the sandbox the config names, or
// the first usable one. When the policy requires a sandbox and none works, it refuses.
type Shell struct {
	Backend    string // auto | docker | bwrap | firejail | landlock | none
	Candidates []sandbox.Backend
	Timeout    time.Duration
	MaxOutput  int
	Paths      safety.Paths
	// Protected is cockpit's own state: no workspace may overlap it, no argument reach it.
	Protected *safety.Protected

	once    sync.Once
	chosen  sandbox.Backend
	failure error
}

// DefaultCandidates are the backends in the seed's order.
func DefaultCandidates(forbidden []string) []sandbox.Backend {
	return []sandbox.Backend{sandbox.Docker{}, sandbox.Bwrap{}, sandbox.Firejail{Forbidden: forbidden}, sandbox.Landlock{}}
}

// sandbox returns the backend, probing once per process.
func (s *Shell) sandbox(ctx context.Context) (sandbox.Backend, error) {
	s.once.Do(func() {
		s.chosen, s.failure = sandbox.Choose(ctx, s.Backend, s.Candidates)
	})
	return s.chosen, s.failure
}

// Describe says which sandbox the shell uses, or why none.
func (s *Shell) Describe(ctx context.Context) string {
	b, err := s.sandbox(ctx)
	if err != nil {
		return "no sandbox: " + err.Error()
	}
	return b.Describe()
}

// workspace returns the policy's resolved workspace roots.
func (s *Shell) workspace(pol engine.Policy) ([]string, error) {
	if pol.Workspace.All || len(pol.Workspace.Names) == 0 {
		return nil, engine.Refuse("no_workspace", "the shell needs workspace_restrictions in the policy")
	}
	var out []string
	for _, w := range pol.Workspace.Sorted() {
		r, err := s.Paths.ResolveUser(w)
		if err != nil {
			return nil, engine.Refuse("no_workspace", "workspace %q: %v", w, err)
		}
		if p, ok := s.Protected.Overlaps(r); ok {
			return nil, engine.Refuse("path_forbidden", "workspace %q overlaps cockpit's own state (%s): the sandbox would mount it", w, p)
		}
		out = append(out, r)
	}
	return out, nil
}

// Run checks and runs one command.
func (s *Shell) Run(ctx context.Context, command, cwd string, pol engine.Policy) (*jsonv.Object, error) {
	if safety.BroadPythonKill(command) {
		return nil, engine.Refuse("broad_python_kill", "%s", safety.KillGuardError)
	}
	argv, err := safety.SplitCommand(command)
	if err != nil {
		return nil, engine.Refuse("shell_syntax", "%v: commands run without a shell; pass one program and its arguments", err)
	}
	if pol.Commands.All || !pol.Commands.Names[argv[0]] {
		return nil, engine.Refuse("command_not_allowed", "%q is not in allowed_commands (%s)", argv[0], strings.Join(pol.Commands.Sorted(), ", "))
	}
	roots, err := s.workspace(pol)
	if err != nil {
		return nil, err
	}
	dir := roots[0]
	if cwd != "" {
		if dir, err = s.inside(cwd, roots[0], roots, pol); err != nil {
			return nil, err
		}
	}
	// Every argument that could name a file is checked as one, relative to the working
	// directory: a flag's value after '=', or any argument not starting with '-'. A plain
	// word stays inside the workspace unless it is a symlink out or a forbidden path.
	for _, a := range argv[1:] {
		v := a
		if i := strings.IndexByte(a, '='); i >= 0 && strings.HasPrefix(a, "-") {
			v = a[i+1:]
		} else if strings.HasPrefix(a, "-") {
			continue
		}
		if v == "" {
			continue
		}
		if _, err := s.inside(v, dir, roots, pol); err != nil {
			return nil, err
		}
	}
	b, berr := s.sandbox(ctx)
	switch {
	case berr != nil && pol.RequireSandbox:
		return nil, engine.Refuse("sandbox_unavailable", "the policy requires a sandbox and none is usable (%v)", berr)
	case berr == nil && b.Name() == "none" && pol.RequireSandbox:
		return nil, engine.Refuse("sandbox_unavailable", "the policy requires a sandbox and the shell backend is none")
	case berr != nil:
		b = sandbox.None{}
	}
	ws := roots[0]
	for _, r := range roots {
		if safety.Within(dir, r) {
			ws = r
		}
	}
	tmp := filepath.Join(ws, ".tmp")
	os.MkdirAll(tmp, 0o700)
	env := sandbox.Run(ctx, b, sandbox.Spec{Argv: argv, Dir: dir, Workspace: ws, Timeout: s.Timeout, MaxOutput: s.MaxOutput,
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + ws, "TMPDIR=" + tmp, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}})
	out := jsonv.ObjectOf("status", env.Status)
	if env.ExitCode != nil {
		out.Set("exit_code", jsonv.Number(fmt.Sprint(*env.ExitCode)))
	}
	out.Set("stdout", env.Stdout)
	out.Set("stderr", env.Stderr)
	if env.Error != "" {
		out.Set("error", env.Error)
	}
	if env.ErrorCode != "" {
		out.Set("error_code", env.ErrorCode)
	}
	out.Set("sandbox", b.Describe())
	return out, nil
}

// inside resolves p against base and requires it within a workspace root and outside the
// forbidden paths.
func (s *Shell) inside(p, base string, roots []string, pol engine.Policy) (string, error) {
	if !strings.HasPrefix(p, "/") {
		p = base + "/" + p
	}
	res, err := s.Paths.Resolve(p)
	if err != nil {
		return "", engine.Refuse("path_not_allowed", "%v", err)
	}
	if fp, ok := forbidden(s.Paths, res, pol); ok {
		return "", engine.Refuse("path_forbidden", "%s is under the forbidden path %s", p, fp)
	}
	if _, ok := s.Protected.Overlaps(res); ok {
		return "", engine.Refuse("path_forbidden", "%s is cockpit's own state (runtime root, database, config or log): no agent tool may touch it", p)
	}
	for _, r := range roots {
		if safety.Within(res, r) {
			return res, nil
		}
	}
	return "", engine.Refuse("path_not_allowed", "%s is outside the workspace", p)
}

// ShellTool is run_command.
func ShellTool(s *Shell) *engine.Tool {
	return &engine.Tool{Name: "run_command", Effect: engine.EffectExternal, ScanFields: []string{"stdout", "stderr"},
		Description: "Run one allowed program with arguments in the workspace, sandboxed, without a shell (no pipes, redirects or variables).",
		Params: []engine.Param{{Name: "command", Type: engine.TypeString, Required: true, Description: "program and arguments"},
			{Name: "cwd", Type: engine.TypeString, Description: "working directory inside the workspace"}},
		Run: func(ctx context.Context, args *jsonv.Object, pol engine.Policy) (any, error) {
			c, _ := args.Get("command")
			cmd, _ := c.(string)
			d, _ := args.Get("cwd")
			cwd, _ := d.(string)
			out, err := s.Run(ctx, cmd, cwd, pol)
			if err != nil {
				var te *engine.ToolError
				if errors.As(err, &te) {
					return nil, te
				}
				return nil, err
			}
			return out, nil
		}}
}
