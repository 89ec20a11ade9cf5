package vibeattach

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
	"cockpit/live/vibe"
)

// tailRows is how many audit rows the snapshot carries (the L view reads all kept records).
const tailRows = 60

// auditTail advances the chain follower and returns the newest rows, newest first; a break or
// an unreadable file is a fault on the snapshot.
func (b *Backend) auditTail(snap *readmodel.Snapshot) ([]readmodel.AuditRow, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.tail.Advance(); err != nil {
		snap.Faults = append(snap.Faults, "audit chain unreadable: "+redact.Secrets(err.Error()))
	}
	if rep := b.tail.Report(); !rep.OK {
		br := rep.Break
		snap.Faults = append(snap.Faults, fmt.Sprintf("audit chain broken at line %d (seq %d, %s): %d records verified; every row from there on is UNVERIFIED",
			br.Index+1, br.Seq, br.Reason, rep.Records))
	}
	recent := b.tail.Recent()
	return rowsOf(recent[max(0, len(recent)-tailRows):]), int64(b.tail.Lines())
}

// Audit implements tui.Backend over the kept records (newest first), filtered by text.
func (b *Backend) Audit(_ context.Context, f readmodel.AuditFilter) ([]readmodel.AuditRow, error) {
	b.mu.Lock()
	err := b.tail.Advance()
	rows := rowsOf(b.tail.Recent())
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var out []readmodel.AuditRow
	needle := strings.ToLower(f.Text)
	for _, r := range rows {
		if f.BeforeSeq > 0 && r.Seq >= f.BeforeSeq {
			continue
		}
		hay := strings.ToLower(r.Type + " " + r.Reason + " " + r.Summary + " " + r.OrderID + " " + r.Tool)
		if needle != "" && !strings.Contains(hay, needle) {
			continue
		}
		if out = append(out, r); f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

// rowsOf turns chained records (oldest first) into screen rows, newest first.
func rowsOf(recs []vibe.TailRecord) []readmodel.AuditRow {
	out := make([]readmodel.AuditRow, 0, len(recs))
	for i := len(recs) - 1; i >= 0; i-- {
		out = append(out, auditRow(recs[i]))
	}
	return out
}

// auditRow is one Vibe-Trading audit record (A1) as a screen row; every text is redacted.
func auditRow(r vibe.TailRecord) readmodel.AuditRow {
	row := readmodel.AuditRow{Seq: r.Seq, Unverified: !r.Verified, Actor: "vibe", Type: "unreadable line"}
	o := r.Record
	if o == nil {
		row.Summary = fmt.Sprintf("line %d is not a JSON object", r.Index+1)
		return row
	}
	str := func(k string) string { s, _ := o.Value(k).(string); return redact.Secrets(s) }
	row.Time, _ = live.ParseExpiry(str("ts"))
	if sid := str("session_id"); sid != "" {
		row.Actor = "vibe:" + sid
	}
	row.Type, row.Outcome, row.Tool = str("kind"), str("outcome"), str("remote_tool")
	if g, ok := o.Value("gate_decision").(*jsonv.Object); ok {
		if l, _ := g.Value("limit").(string); l != "" {
			row.Reason = redact.Secrets(l)
		}
	}
	var parts []string
	for _, k := range []string{"intent_normalized", "error"} {
		switch v := o.Value(k).(type) {
		case nil:
		case string:
			parts = append(parts, redact.Secrets(v))
		default:
			if s, err := jsonv.MarshalString(redact.ForStorage(v), jsonv.Compact); err == nil {
				parts = append(parts, redact.Secrets(s))
			}
		}
	}
	row.Summary = strings.Join(parts, " · ")
	return row
}

// positions reads the broker's last reconciled positions (runtime_state.json, written by
// Vibe-Trading's runner on a clean reconcile): cockpit has no broker access here, so without
// that file the exposure is unknown and shown as a broker error, never as zero.
func (b *Backend) positions(snap *readmodel.Snapshot) {
	path := filepath.Join(b.o.Root.BrokerDir(b.o.Broker), "runtime_state.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		snap.BrokerErr = "no broker access when attached, and no runtime_state.json (Vibe-Trading's runner has not reconciled): exposure unknown"
		return
	}
	if err != nil {
		snap.BrokerErr = "runtime_state.json unreadable: " + err.Error()
		return
	}
	doc, err := jsonv.Parse(data, jsonv.Options{})
	o, ok := doc.(*jsonv.Object)
	if err != nil || !ok {
		snap.BrokerErr = "runtime_state.json is not a JSON object: exposure unknown"
		return
	}
	book := live.ParsePositions(o.Value("positions"))
	if book.Err != nil {
		snap.BrokerErr = "runtime_state.json positions unreadable: " + book.Err.Error()
		return
	}
	for _, e := range book.Exposures {
		snap.Positions = append(snap.Positions, live.Position{Symbol: e.Symbol, MarketValue: e.Net})
	}
	at, _ := o.Value("reconciled_at").(string)
	if t, err := live.ParseExpiry(at); err != nil || snap.Taken.Sub(t) > 10*time.Minute {
		snap.Faults = append(snap.Faults, "positions are from runtime_state.json reconciled at "+at+" (over 10 minutes old or unreadable)")
	}
}
