package session

import (
	"context"
	"errors"

	"cockpit/engine/agents/wasmplugin"
)

// buildPlugin loads the WASM strategy plugin (file, or agents.plugin.file) with the hash
// pinned in config, and installs its grants as its policy layer.
func (s *Session) buildPlugin(file string) error {
	cfg := s.rt.Config.Agents.Plugin
	module, manifest := cfg.Paths(s.rt.Root, file)
	if module == "" {
		return errors.New("the plugin agent needs a module: --plugin FILE.wasm or agents.plugin.file")
	}
	ctx := context.Background()
	a, err := wasmplugin.Load(ctx, wasmplugin.Config{File: module, SHA256: cfg.SHA256, Manifest: manifest,
		Audit: s.rt.Audit, Session: s.id, Broker: s.key, Now: s.rt.Now, Log: s.rt.Log})
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() { a.Close(context.Background()) })
	a.Grant(&s.eng.Policy)
	s.agent, s.interval = a, cfg.Every()
	return nil
}
