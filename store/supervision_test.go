package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestClaimCommandExclusive: two owners (two handles on one file, as two processes) race to
// claim the same commands; each command is claimed exactly once.
func TestClaimCommandExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cockpit.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	const n = 40
	for i := 0; i < n; i++ {
		if _, err := a.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "cancel", Args: `{}`}); err != nil {
			t.Fatal(err)
		}
	}
	claimed := map[int64]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, o := range []struct {
		db *DB
		id string
	}{{a, "sess-a"}, {b, "sess-b"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := o.db.ClaimCommand(ctx, "paper", o.id, CommandTTL)
				if err != nil {
					t.Error(err)
					return
				}
				if c == nil {
					return
				}
				mu.Lock()
				if prev, dup := claimed[c.ID]; dup {
					t.Errorf("command %d claimed by %s and %s", c.ID, prev, o.id)
				}
				claimed[c.ID] = o.id
				mu.Unlock()
				if c.ClaimedBy != o.id || c.State != CommandRunning {
					t.Errorf("claimed %+v, want running by %s", c, o.id)
				}
			}
		}()
	}
	wg.Wait()
	if len(claimed) != n {
		t.Errorf("claimed %d commands, want %d", len(claimed), n)
	}
}

// TestStaleCommandFailedNotRun: a command nobody claimed within the TTL is failed owner_gone
// by the next claim, never handed out late; a finished command keeps its first end.
func TestStaleCommandFailedNotRun(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	id, err := db.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "flatten", Args: `{}`})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(CommandTTL + time.Second)
	c, err := db.ClaimCommand(ctx, "paper", "sess-late", CommandTTL)
	if err != nil || c != nil {
		t.Fatalf("claim of a stale command = %+v, %v; want nothing", c, err)
	}
	got, err := db.CommandByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != CommandFailed || got.Result != `{"error":"owner_gone"}` || got.ClaimedBy != "" {
		t.Errorf("stale command = %+v, want failed owner_gone, unclaimed", got)
	}
	if err := db.FinishCommand(ctx, id, CommandDone, `{}`); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.CommandByID(ctx, id); got.State != CommandFailed {
		t.Errorf("finish after failure: state %s, want failed kept", got.State)
	}
	fresh, _ := db.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "cancel", Args: `{}`})
	if c, err := db.ClaimCommand(ctx, "paper", "sess", CommandTTL); err != nil || c == nil || c.ID != fresh {
		t.Errorf("fresh command claim = %+v, %v; want %d", c, err, fresh)
	}
}

// TestOwnerHeartbeatStale: the owner row with a fake clock: alive within the window, stale
// after it, gone after a clean shutdown; another session's clear leaves it alone.
func TestOwnerHeartbeatStale(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	if err := db.SetOwner(ctx, Owner{Broker: "paper", PID: 42, Host: "h", Kind: "serve-mcp", Agent: "none", SessionID: "s1", StartedAt: t0, HeartbeatAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.Heartbeat(ctx, "paper", "s1", t0.Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	o, ok, err := db.OwnerOf(ctx, "paper")
	if err != nil || !ok {
		t.Fatalf("owner: %v %v", ok, err)
	}
	tests := []struct {
		at   time.Duration
		want bool
	}{{4 * time.Second, true}, {8 * time.Second, true}, {8*time.Second + time.Millisecond, false}, {time.Minute, false}}
	for _, tt := range tests {
		if got := o.Alive(t0.Add(tt.at), 5*time.Second); got != tt.want {
			t.Errorf("Alive at +%s = %v, want %v", tt.at, got, tt.want)
		}
	}
	if o.WatchedAt != (time.Time{}) {
		t.Errorf("never watched: WatchedAt %s", o.WatchedAt)
	}
	db.WatchOwner(ctx, "paper", t0.Add(time.Second))
	if o, _, _ := db.OwnerOf(ctx, "paper"); !o.WatchedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("WatchedAt %s, want %s", o.WatchedAt, t0.Add(time.Second))
	}
	db.ClearOwner(ctx, "paper", "other")
	if _, ok, _ := db.OwnerOf(ctx, "paper"); !ok {
		t.Error("another session's clear removed the owner row")
	}
	db.ClearOwner(ctx, "paper", "s1")
	if _, ok, _ := db.OwnerOf(ctx, "paper"); ok {
		t.Error("owner row kept after a clean shutdown")
	}
}

// TestLiveStateVersion: the version moves only when the body changes; the same body moves
// only when it was published.
func TestLiveStateVersion(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	for i, tt := range []struct {
		body string
		want int64
	}{{`{"a":1}`, 1}, {`{"a":1}`, 1}, {`{"a":2}`, 2}} {
		now = now.Add(time.Second)
		v, err := db.PutLiveState(ctx, "paper", []byte(tt.body))
		if err != nil || v != tt.want {
			t.Errorf("put %d: version %d, %v; want %d", i, v, err, tt.want)
		}
		if gv, at, err := db.LiveStateVersion(ctx, "paper"); err != nil || gv != tt.want || !at.Equal(now) {
			t.Errorf("put %d: LiveStateVersion = %d %s %v; want %d %s", i, gv, at, err, tt.want, now)
		}
	}
	v, body, err := db.LiveState(ctx, "paper")
	if err != nil || v != 2 || string(body) != `{"a":2}` {
		t.Errorf("LiveState = %d %s %v", v, body, err)
	}
}

// TestAbandonCommand: a pending command its supervisor gave up on is never claimed; one
// already claimed is left to its owner.
func TestAbandonCommand(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	id, _ := db.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "close", Args: `{"symbol":"AAPL"}`})
	if ok, err := db.AbandonCommand(ctx, id); !ok || err != nil {
		t.Fatalf("abandon pending: %v %v", ok, err)
	}
	if c, err := db.ClaimCommand(ctx, "paper", "s", CommandTTL); c != nil || err != nil {
		t.Errorf("abandoned command claimed: %+v %v", c, err)
	}
	id, _ = db.EnqueueCommand(ctx, Command{Actor: "tui:op", Broker: "paper", Kind: "close", Args: `{"symbol":"AAPL"}`})
	if c, _ := db.ClaimCommand(ctx, "paper", "s", CommandTTL); c == nil || c.ID != id {
		t.Fatalf("claim: %+v", c)
	}
	if ok, _ := db.AbandonCommand(ctx, id); ok {
		t.Error("a running command was abandoned")
	}
}
