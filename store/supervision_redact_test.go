package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSupervisionRowsRedacted: a broker's raw reply with a token in an open order, a flatten
// step naming a key, and a result quoting a broker error never reach cockpit.db verbatim (they
// did: live_state and the commands rows were the only store writes not redacted), and what is
// stored is still JSON a supervisor can read.
func TestSupervisionRowsRedacted(t *testing.T) {
	const tok, key, bearer = "tok_live_9f8e7d6c5b4a39281706", "PKLIVE1234567890ABCD", "sk-live-abcdefghijklmnopqrstuvwx"
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	state := `{"orders":[{"id":"o1","reply":{"account_token":"` + tok + `","api_key":"` + key + `"}}]}`
	if _, err := db.PutLiveState(ctx, "paper", []byte(state)); err != nil {
		t.Fatal(err)
	}
	id, _ := db.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "flatten", Args: `{}`})
	if c, _ := db.ClaimCommand(ctx, "paper", "s", CommandTTL); c == nil || c.ID != id {
		t.Fatalf("claim: %+v", c)
	}
	if err := db.ProgressCommand(ctx, id, `{"Phase":"cancel","Err":"401: api_key=`+key+` refused"}`); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishCommand(ctx, id, CommandFailed, `{"error":"broker said: Authorization: Bearer `+bearer+`"}`); err != nil {
		t.Fatal(err)
	}
	_, body, err := db.LiveState(ctx, "paper")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.CommandByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for name, stored := range map[string]string{"live_state": string(body), "progress": c.Progress, "result": c.Result} {
		for _, secret := range []string{tok, key, bearer} {
			if strings.Contains(stored, secret) {
				t.Errorf("%s holds %s verbatim: %s", name, secret, stored)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(stored), "\n") {
			if !json.Valid([]byte(line)) {
				t.Errorf("%s is no longer JSON after redaction: %s", name, line)
			}
		}
	}
}
