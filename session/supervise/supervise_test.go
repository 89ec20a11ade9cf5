package supervise

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/session"
	"cockpit/store"
)

func env() session.Env {
	return session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard}
}

// owner opens a paper session with no agent on home, as serve-mcp does, and runs its loops
// until the test ends (or stop is called).
func owner(t testing.TB, home string) (s *session.Session, stop func()) {
	t.Helper()
	s, err := session.Open(session.Options{Env: env(), Root: live.Root(home), Agent: "none", Approvals: "cli", Mode: "serve-mcp"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait(); s.Close() }) }
	t.Cleanup(stop)
	return s, stop
}

// supervisor opens a second runtime on home (as another process would) and supervises paper.
func supervisor(t testing.TB, home string) *Backend {
	t.Helper()
	rt, err := session.OpenRuntime(env(), live.Root(home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	b, err := Open(rt, "paper")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// eventually polls the supervisor's snapshot until ok holds (no timing is asserted: the wait
// is only bounded so a broken feed fails instead of hanging).
func eventually(t *testing.T, b *Backend, what string, ok func(readmodel.Snapshot) bool) readmodel.Snapshot {
	t.Helper()
	var snap readmodel.Snapshot
	for i := 0; i < 1500; i++ {
		if snap = b.Snapshot(context.Background()); ok(snap) {
			return snap
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the supervisor never saw %s; last snapshot: supervising %q, %d orders, %d positions, audit total %d",
		what, snap.Supervising, len(snap.Orders), len(snap.Positions), snap.AuditTotal)
	return snap
}

// TestSupervisorSeesOwner: the supervisor's snapshot says who owns the account, and shows an
// order the owner's agent places (its audit row, read incrementally, and the position from the
// owner's live state).
func TestSupervisorSeesOwner(t *testing.T) {
	home := t.TempDir()
	s, _ := owner(t, home)
	s.SetClients(func() []string { return []string{"mcp:claude-desktop@1.2"} })
	sup := supervisor(t, home)
	snap := eventually(t, sup, "the owner and its MCP client", func(s readmodel.Snapshot) bool {
		return strings.HasPrefix(s.Supervising, "SUPERVISING serve-mcp pid") && strings.HasSuffix(s.Supervising, "(mcp:claude-desktop@1.2)")
	})
	if snap.OwnerGone {
		t.Errorf("Supervising = %q: owner gone", snap.Supervising)
	}
	before := snap.AuditTotal
	r := s.Engine().NewTurn("mcp:claude-desktop@1.2").Call(context.Background(), "place_order",
		map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100", "reason": "test"})
	if !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	snap = eventually(t, sup, "the order", func(s readmodel.Snapshot) bool {
		return len(s.Positions) == 1 && s.AuditTotal > before && s.Agent == "mcp:claude-desktop@1.2"
	})
	found := false
	for _, row := range snap.Audit {
		if row.Seq > before && row.Actor == "agent:mcp:claude-desktop@1.2" && row.Tool == "place_order" {
			found = true
		}
	}
	if !found {
		t.Errorf("no new place_order row by the MCP client in the tail %+v", snap.Audit)
	}
	if snap.Positions[0].Symbol != "AAPL" {
		t.Errorf("positions %+v, want AAPL", snap.Positions)
	}
	// the tail is incremental: rows appended later come first, older ones are kept
	again := eventually(t, sup, "a later row", func(s readmodel.Snapshot) bool {
		sup.HaltBroker(context.Background(), "test")
		return s.AuditTotal > snap.AuditTotal
	})
	if len(again.Audit) < 2 || again.Audit[0].Seq <= snap.Audit[0].Seq || again.Audit[len(again.Audit)-1].Seq > snap.Audit[len(snap.Audit)-1].Seq {
		t.Errorf("tail after a new row: first %d last %d; before: first %d last %d", again.Audit[0].Seq,
			again.Audit[len(again.Audit)-1].Seq, snap.Audit[0].Seq, snap.Audit[len(snap.Audit)-1].Seq)
	}
}

// TestSupervisorOwnerStale: with a fake clock the owner's heartbeat goes stale; the snapshot
// says the owner is gone, and a command is refused ErrOwnerGone without being queued.
func TestSupervisorOwnerStale(t *testing.T) {
	home := t.TempDir()
	owner(t, home)
	sup := supervisor(t, home)
	eventually(t, sup, "the owner", func(s readmodel.Snapshot) bool { return s.Supervising != "" && !s.OwnerGone })
	o, alive, err := sup.Owner(context.Background())
	if err != nil || !alive {
		t.Fatalf("owner %+v alive %v %v", o, alive, err)
	}
	sup.Now = func() time.Time { return o.HeartbeatAt.Add(session.OwnerStale + 2*time.Second) }
	snap := sup.Snapshot(context.Background())
	if !snap.OwnerGone || !strings.Contains(snap.Supervising, "OWNER GONE") {
		t.Errorf("stale heartbeat: gone %v, Supervising %q", snap.OwnerGone, snap.Supervising)
	}
	// A killed owner (its row stays): "owner gone" is one warning, the same a second later
	// (issue 28 §3: it was a new alert every second, 30+ rows).
	sup.Now = func() time.Time { return o.HeartbeatAt.Add(session.OwnerStale + 3*time.Second) }
	if w1, w2 := snap.Warnings, sup.Snapshot(context.Background()).Warnings; strings.Join(w1, "|") != strings.Join(w2, "|") {
		t.Errorf("the owner-gone warning changes with time:\n%q\n%q", w1, w2)
	}
	if err := sup.Cancel(context.Background(), "x"); err != ErrOwnerGone {
		t.Errorf("cancel with the owner gone: %v, want ErrOwnerGone", err)
	}
}

// TestSupervisorCommands: cancel and block go through the owner, audited as the supervisor's
// operator in the owner's session.
func TestSupervisorCommands(t *testing.T) {
	home := t.TempDir()
	s, _ := owner(t, home)
	sup := supervisor(t, home)
	eventually(t, sup, "the owner", func(s readmodel.Snapshot) bool { return s.Supervising != "" && !s.OwnerGone })
	ctx := session.WithOperator(context.Background(), "tui:sup-tester")
	if err := sup.Block(ctx, "TSLA", "no more"); err != nil {
		t.Fatalf("block: %v", err)
	}
	if got := s.Engine().Blocked(); len(got) != 1 || got[0] != "TSLA" {
		t.Errorf("owner's block list %v, want [TSLA]", got)
	}
	if err := sup.Cancel(ctx, "no-such-order"); err == nil {
		t.Error("cancel of an unknown order succeeded")
	}
	evs, err := s.Runtime().DB.Events(context.Background(), store.Filter{Type: "symbol_blocked", Limit: 10})
	if err != nil || len(evs) != 1 {
		t.Fatalf("symbol_blocked events %d %v", len(evs), err)
	}
	if e := evs[0]; e.ActorKind != "operator" || e.ActorID != "tui:sup-tester" || e.SessionID != s.ID() {
		t.Errorf("block audited by %s:%s in session %s, want operator:tui:sup-tester in %s", e.ActorKind, e.ActorID, e.SessionID, s.ID())
	}
}

// TestSupervisorFlattenOwnerGone: with no owner (it stopped), the supervisor flattens with the
// configured broker itself, verified.
func TestSupervisorFlattenOwnerGone(t *testing.T) {
	home := t.TempDir()
	s, stop := owner(t, home)
	r := s.Engine().NewTurn("strategy").Call(context.Background(), "place_order",
		map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100", "reason": "test"})
	if !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	s.SetOnQuit("leave")
	stop()
	sup := supervisor(t, home)
	snap := sup.Snapshot(context.Background())
	if !snap.OwnerGone || !strings.Contains(snap.Supervising, "no process owns paper") {
		t.Errorf("after the owner stopped: gone %v, Supervising %q", snap.OwnerGone, snap.Supervising)
	}
	rep := sup.Flatten(session.WithOperator(context.Background(), "tui:sup-tester"), nil)
	if !rep.Flat() || !strings.HasPrefix(rep.Summary(), "FLAT (verified") {
		t.Fatalf("flatten: %s", rep.Summary())
	}
}

// TestSupervisorShowsItsOwnVerifiedFlat (issue 28 §3): after the owner died, the supervisor's
// own verified FLAT is what its panes show at once (they showed the dead owner's resting
// order and positions for 16 s and more), and "owner gone" is one warning, worded the same
// every second (it was a new alert each second).
func TestSupervisorShowsItsOwnVerifiedFlat(t *testing.T) {
	home := t.TempDir()
	s, stop := owner(t, home)
	sup := supervisor(t, home)
	eventually(t, sup, "the owner", func(s readmodel.Snapshot) bool { return s.Supervising != "" && !s.OwnerGone })
	if r := s.Engine().NewTurn("strategy").Call(context.Background(), "place_order",
		map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100", "reason": "test"}); !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	eventually(t, sup, "the owner's position", func(s readmodel.Snapshot) bool { return len(s.Positions) > 0 })
	s.SetOnQuit("leave")
	stop()
	snap := sup.Snapshot(context.Background())
	if !snap.OwnerGone || len(snap.Positions) == 0 {
		t.Fatalf("after the owner stopped: gone %v, %d positions (its last published state)", snap.OwnerGone, len(snap.Positions))
	}
	later := sup.Now
	sup.Now = func() time.Time { return later().Add(3 * time.Second) }
	if w1, w2 := snap.Warnings, sup.Snapshot(context.Background()).Warnings; strings.Join(w1, "|") != strings.Join(w2, "|") {
		t.Errorf("the owner-gone warning changes with time (a new alert each second):\n%q\n%q", w1, w2)
	}
	sup.Now = later
	if rep := sup.Flatten(session.WithOperator(context.Background(), "tui:sup-tester"), nil); !rep.Flat() {
		t.Fatalf("flatten: %s", rep.Summary())
	}
	if snap := sup.Snapshot(context.Background()); len(snap.Positions) != 0 || len(snap.Orders) != 0 || snap.BookAt.IsZero() {
		t.Errorf("after the verified FLAT the panes show %d positions, %d orders (book at %v): the dead owner's state",
			len(snap.Positions), len(snap.Orders), snap.BookAt)
	}
}

// TestSupervisorAbandonsUnclaimedCommand: a supervisor that stops waiting (its ctx ends)
// before the owner claimed its command fails it abandoned, so it never runs late.
func TestSupervisorAbandonsUnclaimedCommand(t *testing.T) {
	home := t.TempDir()
	sup := supervisor(t, home)
	db := sup.rt.DB
	now := time.Now()
	// an owner row that heartbeats but runs no commands (a busy owner)
	if err := db.SetOwner(context.Background(), store.Owner{Broker: "paper", PID: 1, Host: "h", Kind: "headless", Agent: "strategy",
		SessionID: "sess-busy", StartedAt: now, HeartbeatAt: now}); err != nil {
		t.Fatal(err)
	}
	// long enough to queue it on a loaded machine under -race (100 ms was not, in CI)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := sup.ClosePosition(ctx, "AAPL")
	if err == nil || !strings.Contains(err.Error(), "the owner had not started it") {
		t.Fatalf("close with no claim: %v", err)
	}
	c, err := db.CommandByID(context.Background(), 1)
	if err != nil || c.State != store.CommandFailed || c.Result != `{"error":"abandoned"}` {
		t.Errorf("command %+v %v, want failed abandoned", c, err)
	}
}

// TestStoppedWaitNeverLeavesACommandQueued: however soon the supervisor's deadline falls —
// before the command is queued, while it is read back, while it waits — a command nobody
// claimed is withdrawn, never left pending for the owner to run late. (A read that failed on
// the expired deadline returned straight away and left it pending.)
func TestStoppedWaitNeverLeavesACommandQueued(t *testing.T) {
	home := t.TempDir()
	sup := supervisor(t, home)
	db := sup.rt.DB
	now := time.Now()
	if err := db.SetOwner(context.Background(), store.Owner{Broker: "paper", PID: 1, Host: "h", Kind: "headless", Agent: "strategy",
		SessionID: "sess-busy", StartedAt: now, HeartbeatAt: now}); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%40)*50*time.Microsecond)
		err := sup.ClosePosition(ctx, "AAPL")
		cancel()
		if err == nil {
			t.Fatalf("try %d: a close nobody ran succeeded", i)
		}
	}
	for id := int64(1); ; id++ {
		c, err := db.CommandByID(context.Background(), id)
		if err != nil {
			if id == 1 {
				t.Fatal("no command was ever queued: the deadlines are all too short to test anything")
			}
			break
		}
		if c.State == store.CommandPending {
			t.Errorf("command %d is still pending after its supervisor stopped waiting (result %q)", id, c.Result)
		}
	}
}
