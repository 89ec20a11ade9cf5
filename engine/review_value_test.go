package engine_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/store"
)

// TestApprovalCoversOnlyTheValueShown (review of issue 10 item 7): at 2/2 trades the card
// shows max_trades_per_day 3 > 2; while the human reads, another order uses a trade. The
// re-check finds the same limit breached further (4 > 2), which the human never saw: the
// order is not sent (before: waived by the limit's name and sent as the 4th order of 2).
func TestApprovalCoversOnlyTheValueShown(t *testing.T) {
	f := enginetest.New(t, enginetest.WithMandate(capsDoc("2", "null")))
	useTrades(t, f, 2)
	done := f.Human(func(a store.Approval) {
		useTrades(t, f, 1)
		f.Resolve(store.ApprovalApproved, "")(a)
	})
	r := f.Call("place_order", enginetest.Buy("AAPL", "1000"))
	<-done
	if r.Code != "approval_does_not_cover:"+live.LimitTradesPerDay || f.Placed() != 0 {
		t.Fatalf("got %s %s, %d forwards; want approval_does_not_cover:max_trades_per_day and nothing sent", r.Code, r.Detail, f.Placed())
	}
}

// TestApprovalStillCoversTheSameValue: nothing changed while the human read; the approved
// order is sent.
func TestApprovalStillCoversTheSameValue(t *testing.T) {
	f := enginetest.New(t, enginetest.WithMandate(capsDoc("2", "null")))
	useTrades(t, f, 2)
	done := f.Human(f.Resolve(store.ApprovalApproved, ""))
	r := f.Call("place_order", enginetest.Buy("AAPL", "1000"))
	<-done
	if f.Placed() != 1 {
		t.Fatalf("got %s %s, %d forwards; want the approved order sent", r.Code, r.Detail, f.Placed())
	}
}

// TestReviewReadsOnlyTheVerifiedMandate (review of DV13): the drift an approval tolerates
// comes from the committed mandate only. mandate.json rewritten while the human reads (a
// price collar of 100,000 bps) is not the mandate: the final gate run refuses it before it
// looks at the price (before issue 11 item 6 the engine's own drift check answered first,
// stale_approval; either way nothing is sent). Without the rewrite, a 0.8 % move is beyond
// the committed 50 bps collar (the default would allow 100): stale.
func TestReviewReadsOnlyTheVerifiedMandate(t *testing.T) {
	doc := strings.TrimSuffix(capsDoc("40", "null"), "}") + `, "controls": {"price_collar_bps": 50}}`
	for _, rewrite := range []bool{true, false} {
		f := enginetest.New(t, enginetest.WithMandate(doc))
		done := f.Human(func(a store.Approval) {
			if rewrite {
				path := f.Root.MandatePath(live.PaperBroker)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Error(err)
				}
				if err := os.WriteFile(path, bytes.Replace(data, []byte(`"price_collar_bps": 50`), []byte(`"price_collar_bps": 100000`), 1), 0o600); err != nil {
					t.Error(err)
				}
			}
			f.Broker.Bps.Store(80) // +0.8 %
			f.Resolve(store.ApprovalApproved, "")(a)
		})
		r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
		<-done
		want := live.ReasonStaleApproval
		if rewrite {
			want = live.ReasonMandateTampered
		}
		if r.Code != want || f.Placed() != 0 {
			t.Errorf("rewrite %v: got %s %s, %d forwards; want %s and none", rewrite, r.Code, r.Detail, f.Placed(), want)
		}
	}
}
