package main

import (
	"context"
	"fmt"
	"path/filepath"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// statusTrouble adds what makes `status` fail to the report — an invalid config, a store that
// cannot be opened or read, a chain that disagrees with its anchor — and returns the exit code.
func (a *App) statusTrouble(root live.Root, report *jsonv.Object) int {
	code := exitOK
	if _, err := config.Load(root); err != nil {
		report.Set("config_error", err.Error())
		code = exitFailure
	}
	if st, ok := report.Get("store"); ok {
		if o, ok := st.(*jsonv.Object); ok {
			if _, bad := o.Get("error"); bad {
				code = exitFailure
			}
		}
	}
	return code
}

// missingStore says so when cockpit.db is gone but its anchor records events ("" otherwise).
func missingStore(root live.Root) string {
	h, found, err := store.ReadHead(filepath.Join(root.Dir(), store.AnchorFile))
	switch {
	case err != nil:
		return err.Error()
	case found && h.Seq > 0:
		return fmt.Sprintf("cockpit.db is missing, but the anchor records a chain of %d events ending in %s", h.Seq, h.Hash)
	}
	return ""
}

// anchorTrouble compares the store with its chain-head anchor ("" when they agree).
func anchorTrouble(ctx context.Context, db *store.DB) string {
	h, found, err := store.ReadHead(db.Anchor())
	if err != nil {
		return err.Error()
	}
	if !found {
		return ""
	}
	m, err := db.CheckAnchor(ctx, h)
	switch {
	case err != nil:
		return "audit head check: " + err.Error()
	case m != nil:
		return "audit chain " + m.Reason + ": " + m.Detail
	}
	return ""
}
