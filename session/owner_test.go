package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"cockpit/readmodel"
	"cockpit/store"
)

// TestPublishLiveOnlyWhileWatched: the owner reads the broker for supervisors only while one
// has looked within WatchWindow; then the live state carries the broker's view and the MCP
// clients, and a new version is written only when it changed.
func TestPublishLiveOnlyWhileWatched(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, db := context.Background(), s.rt.DB
	now := time.Now()
	if err := db.SetOwner(ctx, store.Owner{Broker: s.key, PID: 1, Host: "h", Kind: "serve-mcp", Agent: "none", SessionID: s.id, StartedAt: now, HeartbeatAt: now}); err != nil {
		t.Fatal(err)
	}
	s.SetClients(func() []string { return []string{"mcp:c@1"} })
	s.publishLive(ctx, false)
	if v, _, _ := db.LiveStateVersion(ctx, s.key); v != 0 {
		t.Fatalf("unwatched owner published version %d, want nothing", v)
	}
	if err := db.WatchOwner(ctx, s.key, now.Add(-WatchWindow-time.Second)); err != nil {
		t.Fatal(err)
	}
	s.publishLive(ctx, false)
	if v, _, _ := db.LiveStateVersion(ctx, s.key); v != 0 {
		t.Fatalf("owner watched long ago published version %d, want nothing", v)
	}
	db.WatchOwner(ctx, s.key, time.Now())
	s.publishLive(ctx, false)
	v, body, err := db.LiveState(ctx, s.key)
	if err != nil || v != 1 {
		t.Fatalf("watched owner: version %d %v, want 1", v, err)
	}
	var ls readmodel.Owned
	if err := json.Unmarshal(body, &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Clients) != 1 || ls.Clients[0] != "mcp:c@1" || len(ls.Quotes) == 0 || ls.Account.Equity.Sign() <= 0 {
		t.Errorf("live state %s: want the client, quotes and the account", body)
	}
}

// TestRunCommandUnknownKind: a command kind the owner does not know fails, nothing is run.
func TestRunCommandUnknownKind(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	state, result := s.runCommand(context.Background(), store.Command{ID: 1, Kind: "liquidate_everything", Args: `{}`, Actor: "tui:x"})
	if state != store.CommandFailed || result != `{"error":"unknown command liquidate_everything"}` {
		t.Errorf("unknown kind: %s %s", state, result)
	}
	state, _ = s.runCommand(context.Background(), store.Command{ID: 2, Kind: "cancel", Args: `not json`, Actor: "tui:x"})
	if state != store.CommandFailed {
		t.Errorf("unreadable args: %s, want failed", state)
	}
}
