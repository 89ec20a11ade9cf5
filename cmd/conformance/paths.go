package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cockpit/engine/safety"
	"cockpit/live/jsonv"
)

// pathsFixture is the vectors' temporary tree: $ROOT (resolved), $AGENT, HOME=$ROOT/home and
// cwd=$ROOT/cwd. The reference's VIBE_TRADING_* variables map onto cockpit's COCKPIT_*
// (and so do the names in messages); the runtime root's directory keeps the setup's name.
type pathsFixture struct {
	root, agent string
}

// pathsSetup builds the tree once per run from the vectors' setup description.
func pathsSetup(e *env, setup *jsonv.Object) (*pathsFixture, error) {
	if e.paths != nil {
		return e.paths, nil
	}
	dir, err := os.MkdirTemp(e.tmp, "paths")
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	for _, d := range asList(get(setup, "dirs")) {
		s, _ := d.(string)
		for _, p := range expandBraces(s) {
			if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range asList(get(setup, "files")) {
		s, _ := f.(string)
		if err := os.WriteFile(filepath.Join(root, s), []byte("x"), 0o644); err != nil {
			return nil, err
		}
	}
	if links, ok := get(setup, "symlinks").(*jsonv.Object); ok {
		for _, m := range links.Members() {
			target, _ := m.Value.(string)
			if err := os.Symlink(strings.ReplaceAll(target, "$ROOT", root), filepath.Join(root, m.Key)); err != nil {
				return nil, err
			}
		}
	}
	agent := filepath.Join(root, "agentpkg")
	e.paths = &pathsFixture{root: root, agent: agent}
	return e.paths, nil
}

// expandBraces expands one "a/{b,c}/d" group.
func expandBraces(s string) []string {
	i, j := strings.IndexByte(s, '{'), strings.IndexByte(s, '}')
	if i < 0 || j < i {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[i+1:j], ",") {
		out = append(out, expandBraces(s[:i]+alt+s[j+1:])...)
	}
	return out
}

func (f *pathsFixture) sub(s string) string {
	return strings.NewReplacer("$ROOT", f.root, "$AGENT", f.agent).Replace(s)
}

// paths returns the helper set for a case's environment.
func (f *pathsFixture) paths(envv any) safety.Paths {
	env := map[string]string{}
	if o, ok := envv.(*jsonv.Object); ok {
		for _, m := range o.Members() {
			s, _ := m.Value.(string)
			env[strings.Replace(m.Key, "VIBE_TRADING_", "COCKPIT_", 1)] = f.sub(s)
		}
	}
	return safety.Paths{Agent: f.agent, Home: f.root + "/home", Cwd: f.root + "/cwd", DirName: ".vibe-trading", EnvPrefix: "COCKPIT_",
		Getenv: func(k string) string { return env[k] },
		User: func(name string) (string, error) {
			if name == "root" {
				return "/root", nil
			}
			return "", errors.New("no such user")
		}}
}

// compare checks a helper's (result, error) against a case's ok/result or error_type/error.
func (f *pathsFixture) compare(c *jsonv.Object, got string, err error) outcome {
	wantOK, _ := get(c, "ok").(bool)
	if err != nil {
		var pe *safety.PathError
		if !errors.As(err, &pe) {
			return failf("error %v is not typed", err)
		}
		if wantOK {
			want, _ := str(c, "result")
			return failf("%s: %s, oracle ok %s", pe.Type, pe.Msg, f.sub(want))
		}
		wt, _ := str(c, "error_type")
		we, _ := str(c, "error")
		we = strings.ReplaceAll(f.sub(we), "VIBE_TRADING_", "COCKPIT_")
		if pe.Type != wt || pe.Msg != we {
			return failf("%s %q, oracle %s %q", pe.Type, pe.Msg, wt, we)
		}
		return pass()
	}
	if !wantOK {
		we, _ := str(c, "error")
		return failf("ok %s, oracle error %q", got, f.sub(we))
	}
	want, _ := str(c, "result")
	if got != f.sub(want) {
		return failf("result %s, oracle %s", got, f.sub(want))
	}
	return pass()
}

// pathsCategory runs every paths section against one fixture tree.
func pathsCategory(e *env, v any) []outcome {
	top := obj(v)
	fx, err := pathsSetup(e, obj(get(top, "setup")))
	if err != nil {
		return []outcome{{id: "setup", why: err.Error()}}
	}
	var outs []outcome
	each := func(section string, fn func(c *jsonv.Object) outcome) {
		for i, raw := range asList(get(top, section)) {
			o := fn(obj(raw))
			o.id = fmt.Sprintf("%s[%d]", section, i)
			outs = append(outs, o)
		}
	}
	each("safe_path", func(c *jsonv.Object) outcome {
		p, _ := str(c, "p")
		wd, _ := str(c, "workdir")
		got, err := fx.paths(nil).SafePath(fx.sub(p), fx.sub(wd))
		return fx.compare(c, got, err)
	})
	// Cases naming one of the single-argument helpers in "fn".
	byName := func(c *jsonv.Object) outcome {
		p, _ := str(c, "p")
		fn, _ := str(c, "fn")
		ps := fx.paths(get(c, "env"))
		call, ok := map[string]func(string) (string, error){"safe_user_path": ps.SafeUserPath,
			"safe_document_path": ps.SafeDocumentPath, "safe_run_dir": ps.SafeRunDir, "safe_run_id": ps.SafeRunID}[fn]
		if !ok {
			return failf("unknown fn %q", fn)
		}
		got, err := call(fx.sub(p))
		return fx.compare(c, got, err)
	}
	each("safe_user_and_document_path", byName)
	each("safe_run_dir_and_run_id", byName)
	each("resolve_safe_path", func(c *jsonv.Object) outcome {
		fp, _ := str(c, "file_path")
		purpose, _ := str(c, "purpose")
		ps := fx.paths(get(c, "env"))
		which, _ := str(c, "allowed_roots")
		roots, err := ps.WriteRoots()
		if which == "allowed_file_roots()" {
			roots, err = ps.FileRoots()
		}
		if err != nil {
			return fx.compare(c, "", err)
		}
		var rd *string
		if s, ok := str(c, "run_dir"); ok {
			s = fx.sub(s)
			rd = &s
		}
		got, err := ps.ResolveSafePath(fx.sub(fp), rd, roots, purpose)
		return fx.compare(c, got, err)
	})
	rootsCase := func(name string, o *jsonv.Object) {
		ps := fx.paths(get(o, "env"))
		for _, kind := range []string{"file_roots", "write_roots", "run_roots"} {
			var got []string
			var err error
			switch kind {
			case "file_roots":
				got, err = ps.FileRoots()
			case "write_roots":
				got, err = ps.WriteRoots()
			default:
				got, err = ps.RunRoots()
			}
			var want []string
			for _, x := range asList(get(o, kind)) {
				s, _ := x.(string)
				want = append(want, fx.sub(s))
			}
			out := pass()
			if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
				out = failf("%v (%v), oracle %v", got, err, want)
			}
			out.id = name + "." + kind
			outs = append(outs, out)
		}
	}
	rootsCase("default_roots", obj(get(top, "default_roots")))
	rootsCase("roots_with_vibe_trading_home", obj(get(top, "roots_with_vibe_trading_home")))
	for i, raw := range asList(get(obj(get(top, "is_path_within")), "cases")) {
		c := obj(raw)
		p, _ := str(c, "path")
		r, _ := str(c, "root")
		want, _ := get(c, "expected").(bool)
		out := pass()
		if got := fx.paths(nil).IsPathWithin(fx.sub(p), fx.sub(r)); got != want {
			out = failf("within = %v, oracle %v", got, want)
		}
		out.id = fmt.Sprintf("is_path_within[%d]", i)
		outs = append(outs, out)
	}
	each("workspace_scope_from_envelope", func(c *jsonv.Object) outcome {
		def, _ := get(c, "service_default_restrict").(bool)
		ws, _ := str(c, "workspace_path")
		envl, _ := jsonv.Clone(get(c, "envelope")).(*jsonv.Object)
		substitute(envl, fx)
		scope, err := fx.paths(nil).ScopeFromEnvelope(envl, fx.sub(ws), def)
		if err != nil {
			return fx.compare(c, "", err)
		}
		want := get(c, "result")
		if scope == nil {
			if want != nil {
				return failf("no scope, oracle %s", show(want))
			}
			return pass()
		}
		got := jsonv.ObjectOf("root", scope.Root, "restrict_to_workspace", scope.Restrict)
		wo, _ := jsonv.Clone(want).(*jsonv.Object)
		substitute(wo, fx)
		if !jsonv.Equal(got, wo) {
			return failf("scope %s, oracle %s", show(got), show(wo))
		}
		return pass()
	})
	return outs
}

// substitute replaces $ROOT and $AGENT in every string of o, in place.
func substitute(o *jsonv.Object, fx *pathsFixture) {
	if o == nil {
		return
	}
	for _, m := range o.Members() {
		switch t := m.Value.(type) {
		case string:
			o.Set(m.Key, fx.sub(t))
		case *jsonv.Object:
			substitute(t, fx)
		}
	}
}
