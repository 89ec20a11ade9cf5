package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/session"
)

// mandateAdopt brings a mandate another tool committed on the shared root (Vibe-Trading's
// commit) under cockpit: it shows the limits, asks for the typed broker name, and records the
// hash of exactly the bytes shown, so the gate verifies the file from then on (DV13).
func (a *App) mandateAdopt(args []string) int {
	p, fs := a.preamble("mandate adopt")
	p.withBroker("", "broker whose mandate.json to adopt (required)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if !p.brokerGiven() {
		return a.usageErr(fs, "--broker is required")
	}
	key := p.key
	root, code, ok := p.root()
	if !ok {
		return code
	}
	ad, err := mandatefile.ReadForAdoption(root, key)
	if errors.Is(err, live.ErrNoMandate) {
		return a.failf("no mandate.json for %s at %s: nothing to adopt", key, root.MandatePath(key))
	}
	if err != nil {
		return a.failf("%s cannot be adopted, nothing was recorded: %v", root.MandatePath(key), err)
	}
	ledger, closeLedger := openLedger(root)
	c := mandatefile.Read(context.Background(), root, ledger, key)
	closeLedger()
	if c.Verified() && c.Hash == ad.Result.DocumentSHA256 {
		fmt.Fprintf(a.Stdout, "The mandate for %s is already the one last committed (sha256 %s): nothing to adopt.\n", key, c.Hash)
		return exitOK
	}
	badge := "PAPER"
	if !live.IsPaperBroker(key) {
		badge = "LIVE — real money"
	}
	fmt.Fprintf(a.Stdout, "About to adopt the mandate in %s for %s [%s] (written by another tool; sha256 %s):\n%s",
		root.MandatePath(key), key, badge, ad.Result.DocumentSHA256, describeMandate(ad.Mandate, a.Now()))
	fmt.Fprintf(a.Stdout, "Type the broker name (%s) to confirm, anything else to cancel: ", key)
	line, err := a.readLine()
	if err != nil || strings.TrimSpace(line) != key {
		fmt.Fprintln(a.Stdout, "\nNot confirmed — nothing was recorded.")
		return exitFailure
	}
	rt, code, ok := p.open("cannot adopt without the audit trail: ")
	if !ok {
		return code
	}
	defer rt.close()
	rec := mandatefile.CommitRecord(rt.app.Now(), live.Operator(operatorName(), "cli"), "adopt", root.MandatePath(key), ad.Result)
	if err := rt.Audit.Record(context.Background(), rec); err != nil {
		rt.Log.Error("mandate adoption not recorded", "err", err)
		return a.failf("the adoption could not be recorded, so the gate still refuses every order: %v", err)
	}
	session.VoidReviews(rt.Runtime, key, ad.Mandate.MandateID) // cards computed under the mandate it replaces
	rt.Log.Info("mandate adopted", "broker", key, "mandate_id", ad.Mandate.MandateID, "sha256", ad.Result.DocumentSHA256)
	printLine(a.Stdout, "Adopted mandate %s for %s (expires %s); the gate now verifies the file against sha256 %s.",
		orUnknown(ad.Mandate.MandateID), key, ad.Mandate.Consent.ExpiresAt, ad.Result.DocumentSHA256)
	return exitOK
}
