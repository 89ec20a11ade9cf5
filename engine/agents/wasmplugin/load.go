package wasmplugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"cockpit/internal/strictmode"
	"cockpit/live"
)

// Digest is the hex SHA-256 of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Load reads the module, checks its pinned hash, reads the manifest and compiles the module
// under the manifest's memory cap. A module whose hash is not pinned, or differs from the
// pin, is refused and the refusal audited.
func Load(ctx context.Context, cfg Config) (*Agent, error) {
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
	a := &Agent{cfg: cfg}
	a.tickTime.Store(cfg.Now().UnixNano())
	man, err := LoadManifest(cfg.Manifest)
	if err != nil {
		return nil, err
	}
	a.man = man
	wasm, err := os.ReadFile(cfg.File)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	got, pin := Digest(wasm), strings.ToLower(strings.TrimSpace(cfg.SHA256))
	switch {
	case pin == "":
		return nil, a.refuse(ctx, ReasonHashNotPinned, fmt.Sprintf("plugin %s: its sha256 is not pinned in config; cockpit does not trust a module on first use. If you trust this file, pin it in config.toml:\n[agents.plugin]\nfile = %q\nsha256 = %q", cfg.File, cfg.File, got), got)
	case pin != got:
		return nil, a.refuse(ctx, ReasonHashMismatch, fmt.Sprintf("plugin %s changed: its sha256 is %s but config pins %s; refusing to load it", cfg.File, got, pin), got)
	}
	rc := wazero.NewRuntimeConfig().WithMemoryLimitPages(man.MemoryPages).WithCloseOnContextDone(true)
	a.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	fail := func(err error) (*Agent, error) {
		a.rt.Close(ctx)
		return nil, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, a.rt); err != nil {
		return fail(fmt.Errorf("plugin: wasi: %w", err))
	}
	if err := instantiateHost(ctx, a.rt); err != nil {
		return fail(fmt.Errorf("plugin: host module: %w", err))
	}
	if a.compiled, err = a.rt.CompileModule(ctx, wasm); err != nil {
		return fail(fmt.Errorf("plugin %s: compile: %w", cfg.File, err))
	}
	if _, ok := a.compiled.ExportedFunctions()["tick"]; !ok {
		return fail(a.refuse(ctx, ReasonNoTickExported, fmt.Sprintf("plugin %s exports no tick function", cfg.File), got))
	}
	return a, nil
}

// refuse audits a refused load and returns it as an error.
func (a *Agent) refuse(ctx context.Context, code live.Reason, msg, digest string) error {
	a.audit(ctx, KindRefused, code, msg, digest)
	return errors.New(msg)
}

func (a *Agent) audit(ctx context.Context, kind string, code live.Reason, msg, digest string) {
	if a.cfg.Audit == nil {
		return
	}
	rec := live.AuditRecord{Time: a.now(), Actor: live.System("plugin", a.cfg.Session), Kind: kind, Outcome: live.OutcomeBlocked,
		Reason: code, Broker: a.cfg.Broker, Error: msg, Intent: "plugin " + a.cfg.File}
	if digest != "" {
		rec.Intent += " sha256 " + digest
	}
	if a.man.Name != "" {
		rec.Actor = live.Agent(a.man.Agent(), a.cfg.Session)
	}
	if err := a.cfg.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		a.log().Error("plugin audit write failed", "kind", kind, "err", err)
	}
}
