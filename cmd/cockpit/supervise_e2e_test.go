package main

import (
	"cockpit/readmodel"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/session"
	"cockpit/session/supervise"
	"cockpit/store"
	"cockpit/tui"
)

// TestSuperviseServeMCP is issue 14's acceptance path end to end: a real `cockpit serve-mcp`
// owns the paper account and takes orders from an MCP client; a supervisor on the same root
// sees them, and its flatten (X) ends FLAT (verified …) executed by the owner, audited as the
// supervisor's operator in the owner's session; `cockpit flatten` from another terminal goes
// through the owner too; with the owner killed, the supervisor says so and flattens itself.
func TestSuperviseServeMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	home := t.TempDir()
	if out, errOut, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatalf("init: exit %d %s %s", code, out, errOut)
	}
	cmd := exec.Command(os.Args[0], "serve-mcp", "--home", home)
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_MAIN=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-desktop", Version: "1.2"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, stderr.String())
	}
	defer cs.Close()
	order := func(args map[string]any) {
		t.Helper()
		for i := 0; ; i++ { // after a resume the owner's watcher needs a moment to see the sentinel gone
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "place_order", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
			if !res.IsError {
				return
			}
			if i == 200 || !strings.Contains(text, "halted") {
				t.Fatalf("place_order %v: %s", args, text)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	buy := func(notional string) map[string]any {
		return map[string]any{"symbol": "AAPL", "side": "buy", "notional": notional, "reason": "test"}
	}
	order(buy("100"))
	order(map[string]any{"symbol": "MSFT", "side": "buy", "quantity": "1", "type": "limit", "limit_price": restingBuy(t, cs, "MSFT"), "reason": "rests"})

	rt, err := session.OpenRuntime(session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard}, live.Root(home))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	sup, err := supervise.Open(rt, "paper")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("SUPERVISING serve-mcp pid %d (mcp:claude-desktop@1.2)", cmd.Process.Pid)
	snap := waitSnap(t, sup, "the MCP client's order", func(s readmodel.Snapshot) bool {
		return s.Supervising == want && len(s.Orders) == 1 && len(s.Positions) == 1
	})
	if o := snap.Orders[0]; snap.Origins[o.ClientOrderID] != "agent:mcp:claude-desktop@1.2" {
		t.Errorf("order origin %q, want the MCP client", snap.Origins[o.ClientOrderID])
	}
	if !hasRow(snap.Audit, "agent:mcp:claude-desktop@1.2", "place_order") {
		t.Errorf("no place_order row by the MCP client in the supervisor's tail")
	}
	if view := supervisedView(t, sup, snap); !strings.Contains(view, want) {
		t.Errorf("the supervising screen at 80×24 lacks %q:\n%s", want, view)
	}
	owner, _, err := sup.Owner(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opCtx := session.WithOperator(ctx, "tui:supervisor")
	before, _ := rt.DB.LastSeq(ctx)
	// X on the supervising screen (confirmed with y): the owner flattens, the dialog shows
	// each step and then the verified result
	m := supervisedModel(t, sup, snap)
	view := pressAndRun(t, m, "X", "y")
	if !strings.Contains(view, "Result: FLAT (verified ") || !strings.Contains(view, "Cancel resting orders") || !strings.Contains(view, "Close positions") {
		t.Fatalf("X on the supervising screen did not end FLAT (verified …):\n%s", view)
	}
	checkActions(t, rt.DB, before, strings.Replace(session.OperatorName(), "cli", "tui", 1), owner.SessionID)

	// `cockpit flatten` from another terminal: the owner runs it
	if err := sup.Resume(opCtx, "again"); err != nil {
		t.Fatal(err)
	}
	order(buy("101"))
	waitSnap(t, sup, "the new position", func(s readmodel.Snapshot) bool { return len(s.Positions) == 1 })
	out, errOut, code := runLive(t, home, nil, "flatten", "--close-positions", "--reason", "from another terminal")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("serve-mcp pid %d owns paper", cmd.Process.Pid)) || !strings.Contains(out, "Result: FLAT (verified ") {
		t.Fatalf("cockpit flatten: exit %d\n%s%s", code, out, errOut)
	}

	// the owner killed: the supervisor says so and flattens itself
	if err := sup.Resume(opCtx, "again"); err != nil {
		t.Fatal(err)
	}
	order(buy("102"))
	waitSnap(t, sup, "the new position", func(s readmodel.Snapshot) bool { return len(s.Positions) == 1 })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cs.Close() // waits for the process
	// the supervisor's clock runs ahead instead of a 5 s wait for the heartbeat to go stale
	sup.Now = func() time.Time { return time.Now().Add(session.OwnerStale + time.Second) }
	snap = sup.Snapshot(ctx)
	if !snap.OwnerGone || !strings.Contains(snap.Supervising, fmt.Sprintf("OWNER GONE (serve-mcp pid %d", cmd.Process.Pid)) {
		t.Fatalf("owner killed: gone %v, %q", snap.OwnerGone, snap.Supervising)
	}
	before, _ = rt.DB.LastSeq(ctx)
	if rep := sup.Flatten(opCtx, nil); !strings.HasPrefix(rep.Summary(), "FLAT (verified ") {
		t.Fatalf("flatten with the owner gone: %s", rep.Summary())
	}
	evs, _ := rt.DB.Events(ctx, store.Filter{AfterSeq: before, Ascending: true, Limit: 100})
	closed := false
	for _, e := range evs {
		if e.Type == live.KindOrderPlaced && e.ActorID == "tui:supervisor" && e.SessionID != owner.SessionID {
			closed = true
		}
	}
	if !closed {
		t.Errorf("no close order by the supervisor itself after the owner died: %v", eventTypes(evs))
	}
}

// restingBuy is a buy limit 0.4% under sym's bid: inside the price collar, below the market.
func restingBuy(t *testing.T, cs *mcp.ClientSession, sym string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_quote", Arguments: map[string]any{"symbol": sym}})
	if err != nil || res.IsError {
		t.Fatalf("get_quote: %v %+v", err, res)
	}
	var q struct {
		Data struct {
			Bid json.Number `json:"bid"`
		} `json:"data"`
	}
	text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &q); err != nil {
		t.Fatalf("quote %s: %v", text, err)
	}
	bid, err := q.Data.Bid.Float64()
	if err != nil || bid <= 0 {
		t.Fatalf("quote %s: no bid", text)
	}
	return fmt.Sprintf("%.2f", bid*0.996)
}

// supervisedView renders the screen over the supervisor at 80×24, as `cockpit` attached from a
// second terminal draws it.
func supervisedView(t *testing.T, sup *supervise.Backend, snap readmodel.Snapshot) string {
	t.Helper()
	m := supervisedModel(t, sup, snap)
	m.Update(tui.TickMsg{})
	return ansi.Strip(m.View().Content)
}

// supervisedModel is the screen's model over the supervisor at 80×24, showing snap.
func supervisedModel(t *testing.T, sup *supervise.Backend, snap readmodel.Snapshot) *tui.Model {
	t.Helper()
	m, err := tui.New(tui.Options{Backend: sup, Now: time.Now, Theme: "no-color"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(tui.SnapshotMsg{Snapshot: snap, OneOff: true})
	return m
}

// pressAndRun types keys into m, then runs the commands they return (and those their messages
// return) as the program would, until none is left or 200 have run; it returns the last frame.
func pressAndRun(t *testing.T, m *tui.Model, keys ...string) string {
	t.Helper()
	var queue []tea.Cmd
	for _, k := range keys {
		msg := tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		_, cmd := m.Update(msg)
		queue = append(queue, cmd)
	}
	for ran := 0; len(queue) > 0 && ran < 200; ran++ {
		cmd := queue[0]
		queue = queue[1:]
		if cmd == nil {
			continue
		}
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			if _, isTick := msg.(tui.TickMsg); isTick {
				continue // the render tick re-arms itself forever
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
	m.Update(tui.TickMsg{})
	return ansi.Strip(m.View().Content)
}

func waitSnap(t *testing.T, b *supervise.Backend, what string, ok func(readmodel.Snapshot) bool) readmodel.Snapshot {
	t.Helper()
	var s readmodel.Snapshot
	for i := 0; i < 1000; i++ {
		if s = b.Snapshot(context.Background()); ok(s) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	j, _ := json.Marshal(s)
	t.Fatalf("the supervisor never saw %s: %s", what, j)
	return s
}

func hasRow(rows []readmodel.AuditRow, actor, tool string) bool {
	for _, r := range rows {
		if r.Actor == actor && r.Tool == tool {
			return true
		}
	}
	return false
}

// checkActions: the flatten's cancel and close records after seq carry the supervisor's
// operator and the owner's session id.
func checkActions(t *testing.T, db *store.DB, after int64, operator, ownerSession string) {
	t.Helper()
	evs, err := db.Events(context.Background(), store.Filter{AfterSeq: after, Ascending: true, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, e := range evs {
		if e.Type != live.KindOrderCancelled && e.Type != live.KindOrderPlaced {
			continue
		}
		kinds[e.Type] = true
		if e.ActorKind != "operator" || e.ActorID != operator || e.SessionID != ownerSession {
			t.Errorf("%s by %s:%s in session %s, want operator:%s in the owner's %s", e.Type, e.ActorKind, e.ActorID, e.SessionID, operator, ownerSession)
		}
	}
	if !kinds[live.KindOrderCancelled] || !kinds[live.KindOrderPlaced] {
		t.Errorf("flatten records %v, want a cancel and a close: %v", kinds, eventTypes(evs))
	}
}

func eventTypes(evs []store.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type+"/"+e.ActorKind+":"+e.ActorID)
	}
	return out
}
