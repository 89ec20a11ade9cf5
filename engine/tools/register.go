package tools

import (
	"cockpit/config"
	"cockpit/engine"
	"cockpit/engine/safety"
)

// Set is what Register added, for the screen and the headless log.
type Set struct {
	Web   *Web
	Shell *Shell // nil when the shell is off
}

// Register adds the tools config.toml turns on: news (on by default, the bundled sample),
// the web reader, files and the shell (off by default). No file or shell tool may reach the
// runtime root's state or the protect files (a database kept elsewhere), whatever the roots.
func Register(reg *engine.Registry, cfg config.Config, runtimeRoot string, protect ...string) (Set, error) {
	t := cfg.Tools
	web := &Web{Policy: t.Web.Policy, MaxBytes: t.Web.MaxBytes, Timeout: t.Web.Timeout.Duration}
	set := Set{Web: web}
	if t.News.Source != "" {
		reg.Add(NewsTool(&News{Source: t.News.Source, Web: web}))
	}
	if t.Web.Enabled {
		reg.Add(WebTool(web))
	}
	paths := safety.DefaultPaths(runtimeRoot)
	if t.Files.Enabled {
		f, err := NewFiles(paths, runtimeRoot, t.Files.ReadRoots, t.Files.WriteRoots, protect...)
		if err != nil {
			return set, err
		}
		reg.Add(f.ReadTool())
		reg.Add(f.WriteTool())
	}
	if t.Shell.Enabled {
		prot := safety.ProtectRuntime(paths, runtimeRoot, protect...)
		blacklist := append(append(append([]string(nil), cfg.Policy.Global.ForbiddenPaths...), prot.Roots...), prot.Files...)
		set.Shell = &Shell{Backend: t.Shell.Backend, Candidates: DefaultCandidates(blacklist),
			Timeout: t.Shell.Timeout.Duration, MaxOutput: int(t.Shell.MaxOutput), Paths: paths, Protected: prot}
		reg.Add(ShellTool(set.Shell))
	}
	return set, nil
}
