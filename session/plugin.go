package session

import (
	"context"
	"errors"

	"cockpit/engine/agents/wasmplugin"
)

// buildPlugin loads the WASM strategy plugin (file, or agents.plugin.file) with the module's
// and the manifest's hashes pinned in config and the operator's ceilings on the manifest, and
// installs its grants as its policy layer. The load, with the grants in force, is audited.
func (s *Session) buildPlugin(file string) error {
	cfg := s.rt.Config.Agents.Plugin
	module, manifest := cfg.Paths(s.rt.Root, file)
	if module == "" {
		return errors.New("the plugin agent needs a module: --plugin FILE.wasm or agents.plugin.file")
	}
	ctx := context.Background()
	pc := wasmplugin.Config{File: module, SHA256: cfg.SHA256, Manifest: manifest, ManifestSHA256: cfg.ManifestSHA256,
		Audit: s.rt.Audit, Session: s.id, Broker: s.key, Now: s.rt.Now, Log: s.rt.Log}
	pc.Ceilings = wasmplugin.Ceilings{MemoryPages: cfg.MaxMemoryPages, TickBudget: cfg.MaxTickBudget.Duration}
	a, err := wasmplugin.Load(ctx, pc)
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() { a.Close(context.Background()) })
	a.Grant(&s.eng.Policy)
	s.agent, s.interval = a, cfg.Every()
	return nil
}
