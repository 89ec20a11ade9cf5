package wasmplugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"cockpit/internal/strictmode"
)

// Digest is the hex SHA-256 of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Load reads the module and its manifest once each, checks both against their pinned hashes,
// parses the manifest from the bytes it hashed, holds it to the operator's ceilings, compiles
// the module under the manifest's memory cap, and audits the grants in force. A module or
// manifest that is not pinned or differs from its pin, or a manifest that asks more than a
// ceiling, is refused and the refusal audited; a load whose record cannot be written does
// not run.
func Load(ctx context.Context, cfg Config) (*Agent, error) {
	if cfg.Audit == nil {
		return nil, errors.New("plugin: no audit sink: a plugin runs only when its load and grants are recorded")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Manifest == "" {
		cfg.Manifest = ManifestPath(cfg.File)
	}
	for _, p := range []string{cfg.Manifest, cfg.File} { // files others could change are not read (StrictModes)
		if err := strictmode.File(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("plugin: %w", err)
		}
	}
	cfg.Ceilings = cfg.Ceilings.orDefault()
	a := &Agent{cfg: cfg}
	a.tickTime.Store(cfg.Now().UnixNano())
	wasm, err := os.ReadFile(cfg.File)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	text, err := os.ReadFile(cfg.Manifest)
	if err != nil {
		return nil, fmt.Errorf("plugin manifest: %w", err)
	}
	a.sums = sums{module: Digest(wasm), manifest: Digest(text)}
	if err := a.checkPins(ctx); err != nil {
		return nil, err
	}
	if err := a.admit(ctx, text); err != nil {
		return nil, err
	}
	if err := a.compile(ctx, wasm); err != nil {
		return nil, err
	}
	if err := a.auditLoaded(ctx); err != nil {
		a.rt.Close(ctx)
		return nil, err
	}
	return a, nil
}

// admit parses the pinned manifest and holds it to the operator's ceilings.
func (a *Agent) admit(ctx context.Context, text []byte) error {
	man, err := ParseManifest(text)
	if err != nil {
		return a.refuse(ctx, ReasonManifestInvalid, fmt.Sprintf("%s (%s)", err, a.cfg.Manifest))
	}
	a.man = man
	if err := man.Within(a.cfg.Ceilings); err != nil {
		return a.refuse(ctx, ReasonOverCeiling, fmt.Sprintf("plugin manifest %s asks more than the operator allows: %s; refusing to load it. Ask less in the manifest (and pin its new sha256), or raise the ceiling in config.toml [agents.plugin]",
			a.cfg.Manifest, err))
	}
	return nil
}

// compile builds the runtime (memory capped at the manifest's pages) and compiles the module.
func (a *Agent) compile(ctx context.Context, wasm []byte) error {
	rc := wazero.NewRuntimeConfig().WithMemoryLimitPages(a.man.MemoryPages).WithCloseOnContextDone(true)
	a.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	fail := func(err error) error {
		a.rt.Close(ctx)
		return err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, a.rt); err != nil {
		return fail(fmt.Errorf("plugin: wasi: %w", err))
	}
	if err := instantiateHost(ctx, a.rt); err != nil {
		return fail(fmt.Errorf("plugin: host module: %w", err))
	}
	var err error
	if a.compiled, err = a.rt.CompileModule(ctx, wasm); err != nil {
		return fail(fmt.Errorf("plugin %s: compile: %w", a.cfg.File, err))
	}
	if _, ok := a.compiled.ExportedFunctions()["tick"]; !ok {
		return fail(a.refuse(ctx, ReasonNoTickExported, fmt.Sprintf("plugin %s exports no tick function", a.cfg.File)))
	}
	return nil
}
