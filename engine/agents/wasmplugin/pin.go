package wasmplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// sums are the SHA-256 digests of the module and manifest bytes Load read.
type sums struct{ module, manifest string }

// pin is one file's digest against its pin in config.
type pin struct {
	what, key, path string // "plugin" or "plugin manifest", its config key, its path
	got, want       string // the file's digest, the pinned one ("" = not pinned)
}

func (p pin) changed() bool { return p.want != "" && p.want != p.got }

// pins are the module's and the manifest's digests against config.
func (a *Agent) pins() [2]pin {
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	return [2]pin{
		{"plugin", "sha256", a.cfg.File, a.sums.module, norm(a.cfg.SHA256)},
		{"plugin manifest", "manifest_sha256", a.cfg.Manifest, a.sums.manifest, norm(a.cfg.ManifestSHA256)},
	}
}

// checkPins refuses a module or manifest whose digest differs from its pin (naming both
// digests), or that is not pinned (printing what to pin). The manifest holds the plugin's
// grants, so it is pinned like the module: nothing in it is read before it matches.
func (a *Agent) checkPins(ctx context.Context) error {
	ps := a.pins()
	var changed []string
	for _, p := range ps {
		if p.changed() {
			changed = append(changed, fmt.Sprintf("%s %s changed: its sha256 is %s but config pins %s (agents.plugin.%s)", p.what, p.path, p.got, p.want, p.key))
		}
	}
	if len(changed) > 0 {
		code := ReasonManifestMismatch
		if ps[0].changed() {
			code = ReasonHashMismatch
		}
		return a.refuse(ctx, code, strings.Join(changed, "; ")+"; refusing to load it. Review what changed (the manifest holds the plugin's grants) and pin the new sha256 in config.toml [agents.plugin] only if you trust it")
	}
	var unpinned []string
	for _, p := range ps {
		if p.want == "" {
			unpinned = append(unpinned, "agents.plugin."+p.key)
		}
	}
	if len(unpinned) == 0 {
		return nil
	}
	return a.refuse(ctx, ReasonHashNotPinned, fmt.Sprintf("plugin %s: %s not set in config; cockpit does not trust a module or its manifest on first use. If you trust these files (review the grants in %s), pin both in config.toml:\n[agents.plugin]\nfile = %q\nsha256 = %q\nmanifest_sha256 = %q",
		a.cfg.File, strings.Join(unpinned, " and "), a.cfg.Manifest, a.cfg.File, ps[0].got, ps[1].got))
}

// refuse audits a refused load and returns it as an error.
func (a *Agent) refuse(ctx context.Context, code live.Reason, msg string) error {
	a.audit(ctx, KindRefused, code, msg)
	return errors.New(msg)
}

// audit records a refused load or a disabled plugin with the files' digests and pins; a
// failed write is logged (the plugin does not run either way).
func (a *Agent) audit(ctx context.Context, kind string, code live.Reason, msg string) {
	rec := a.record(kind, live.OutcomeBlocked, code)
	rec.Error = msg
	if err := a.cfg.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		a.log().Error("plugin audit write failed", "kind", kind, "err", err)
	}
}

// auditLoaded records the load: the plugin's name, its module and manifest digests, the
// grants in force and the ceilings they were held to. A load that cannot be recorded does
// not run.
func (a *Agent) auditLoaded(ctx context.Context) error {
	m := a.man
	rec := a.record(KindLoaded, live.OutcomeAccepted, "")
	rec.Intent = fmt.Sprintf("plugin %s %s loaded under %s: symbols %s, tools %s, %d calls/min, %d pages, tick %s; sha256 %s manifest sha256 %s",
		m.Name, m.Version, m.layerName(), strings.Join(m.Symbols, ","), strings.Join(m.Allowed(), ","), m.CallsPerMinute, m.MemoryPages, m.budget,
		a.sums.module, a.sums.manifest)
	d := rec.Detail.(*jsonv.Object)
	d.Set("name", m.Name)
	d.Set("version", m.Version)
	d.Set("grants", m.Grants())
	d.Set("ceilings", jsonv.ObjectOf("max_memory_pages", int64(a.cfg.Ceilings.MemoryPages), "max_tick_budget", a.cfg.Ceilings.TickBudget.String()))
	if err := a.cfg.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		return fmt.Errorf("plugin %s: its load and grants could not be audited, so it does not run: %w", a.cfg.File, err)
	}
	return nil
}

// record is a lifecycle audit record: by plugin:NAME once the manifest is read (cockpit's
// plugin loader before), with the files, their digests and their pins.
func (a *Agent) record(kind, outcome string, code live.Reason) live.AuditRecord {
	rec := live.AuditRecord{Time: a.now(), Actor: live.System("plugin", a.cfg.Session), Kind: kind, Outcome: outcome,
		Reason: code, Broker: a.cfg.Broker, Intent: fmt.Sprintf("plugin %s sha256 %s manifest sha256 %s", a.cfg.File, a.sums.module, a.sums.manifest)}
	if a.man.Name != "" {
		rec.Actor = live.Agent(a.man.Agent(), a.cfg.Session)
	}
	ps := a.pins()
	rec.Detail = jsonv.ObjectOf("module", ps[0].path, "module_sha256", ps[0].got, "module_pin", ps[0].want,
		"manifest", ps[1].path, "manifest_sha256", ps[1].got, "manifest_pin", ps[1].want)
	return rec
}
