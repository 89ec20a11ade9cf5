package session

import (
	"context"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/mandatefile"
)

// EnsurePaperMandate commits the default paper mandate when the paper broker has none (or an
// expired one), audited as the system's.
func EnsurePaperMandate(rt *Runtime) (*mandatefile.CommitResult, error) {
	m, err := mandatefile.Load(rt.Root, live.PaperBroker)
	if err == nil && !m.Expired(rt.Now()) {
		return nil, nil
	}
	if err != nil && err != live.ErrNoMandate {
		return nil, fmt.Errorf("the paper mandate on file is invalid (%v); fix or remove %s", err, rt.Root.MandatePath(live.PaperBroker))
	}
	doc, err := live.DefaultPaperDraft().JSON() // the one default, shared with the mandate form
	if err != nil {
		return nil, err
	}
	res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: rt.Root, Broker: live.PaperBroker, Document: doc,
		Source: "default paper mandate", AccountRef: "paper", SessionID: "init", ConsentAck: true,
		Lifetime: 30 * 24 * time.Hour, Now: rt.Now()})
	if err != nil {
		return nil, err
	}
	rec := mandatefile.CommitRecord(rt.Now(), live.System("init", ""), "init", "default paper mandate", res)
	rec.Intent = "commit the default paper mandate " + res.MandateID
	return res, rt.Audit.Record(context.Background(), rec) // records the hash the gate verifies (DV13)
}

// CommitMandate commits a mandate document for broker and audits the commit as actor's. The
// mandate stands once committed; a failed audit write is logged and reported.
func CommitMandate(rt *Runtime, key string, data []byte, source string, days int, accountRef string, actor live.Principal) (*mandatefile.CommitResult, error) {
	res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: rt.Root, Broker: key, Document: data, Source: source, AccountRef: accountRef,
		SessionID: actor.SessionID, ConsentAck: true, Lifetime: time.Duration(max(days, 1)) * 24 * time.Hour, Now: rt.Now()}) // at least a day (reference C6)
	if err != nil {
		rt.Log.Error("mandate commit failed", "broker", key, "err", err)
		return nil, err
	}
	rt.Log.Info("mandate committed", "broker", key, "mandate_id", res.MandateID, "consent_record_id", res.ConsentRecordID,
		"expires_at", res.ExpiresAt, "by", actor.ID)
	// The record carries the hash the gate verifies the file against (DV13): without it the
	// mandate is written but unverified, and every order is denied.
	if err := rt.Audit.Record(context.Background(), mandatefile.CommitRecord(rt.Now(), actor, "cli", source, res)); err != nil {
		rt.Log.Error("mandate commit not audited", "err", err)
		VoidReviews(rt, key, res.MandateID) // the old mandate no longer verifies either
		return res, fmt.Errorf("wrote %s, but its commit could not be recorded, so the gate refuses every order until it is committed again: %w", res.MandateID, err)
	}
	VoidReviews(rt, key, res.MandateID)
	return res, nil
}

// VoidReviews voids broker's waiting review items once a new mandate (mandateID) is committed
// or adopted: their breaches, headroom and the limits an approval would waive were computed
// under the old one (the gate refuses such an approval too: live.ReasonMandateChanged). The
// agent hears "voided" and may ask again under the new mandate. Voiding is audited; a failure
// is logged (the gate's refusal still stands).
func VoidReviews(rt *Runtime, broker, mandateID string) {
	ctx := context.Background()
	why := fmt.Sprintf("a new mandate %s was committed for %s: the card was computed under the old one; ask again", mandateID, broker)
	ids, err := rt.DB.VoidPendingFor(ctx, broker, why)
	if err != nil {
		rt.Log.Error("review items not voided after a mandate commit", "broker", broker, "err", err)
		return
	}
	for _, id := range ids {
		if err := rt.Audit.Record(ctx, live.AuditRecord{Time: rt.Now(), Actor: live.System("review", ""), Kind: live.KindApprovalVoided,
			Outcome: string(live.ReviewVoided), Broker: broker, ApprovalID: id, Intent: fmt.Sprintf("review %s voided: %s", id, why)}); err != nil {
			rt.Log.Error("review void not audited", "id", id, "err", err)
		}
	}
}
