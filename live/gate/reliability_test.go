package gate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// child re-executes this test binary in a helper role and returns its stdout lines.
func child(t *testing.T, role, root string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COCKPIT_HELPER="+role, "COCKPIT_HELPER_ROOT="+root)
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// TestHelperProcess is not a test: it is the body of the child processes the reliability
// tests start.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv("COCKPIT_HELPER")
	if role == "" {
		t.Skip("helper process only")
	}
	root, _ := live.NewRoot(os.Getenv("COCKPIT_HELPER_ROOT"))
	switch role {
	case "race":
		n, _ := strconv.Atoi(os.Getenv("COCKPIT_HELPER_GOROUTINES"))
		res := raceOrders(root, n)
		json.NewEncoder(os.Stdout).Encode(res)
	case "halt":
		delay, _ := time.ParseDuration(os.Getenv("COCKPIT_HELPER_DELAY"))
		time.Sleep(delay)
		before := time.Now()
		if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "other-process", "test", time.Now()); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println(before.UnixNano(), time.Now().UnixNano())
	}
	os.Exit(0)
}

type raceResult struct {
	Forwarded int            `json:"forwarded"`
	Denied    map[string]int `json:"denied"`
	NoReason  int            `json:"no_reason"`
}

// raceOrders runs n goroutines, each firing small orders until the daily cap stops it.
func raceOrders(root live.Root, n int) raceResult {
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: int64(os.Getpid()), Symbols: paper.DefaultSymbols()}})
	if err != nil {
		panic(err)
	}
	g := &gate.Gate{Root: root, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{}, Mandates: livetest.PinFile(root, "paper")}
	var mu sync.Mutex
	res := raceResult{Denied: map[string]int{}}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for attempt := 0; attempt < 5000; attempt++ {
				in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("10")}
				d := g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in})
				mu.Lock()
				switch {
				case d.Forwarded && d.Outcome == live.OutcomeAccepted:
					res.Forwarded++
				case d.Reason != "":
					res.Denied[string(d.Reason)]++
				default:
					res.NoReason++
				}
				mu.Unlock()
				if d.Breach != nil && d.Breach.Limit == live.LimitTradesPerDay {
					return
				}
			}
		}()
	}
	wg.Wait()
	return res
}

// raceFleet starts n helper processes racing orders on root (2 goroutines each); wait adds
// their results to total.
func raceFleet(t *testing.T, root live.Root, n int) (wait func(total *raceResult)) {
	t.Helper()
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := 0; i < n; i++ {
		cmd := child(t, "race", root.Dir(), "COCKPIT_HELPER_GOROUTINES=2")
		var b strings.Builder
		cmd.Stdout = &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	return func(total *raceResult) {
		t.Helper()
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child %d: %v", i, err)
			}
			var r raceResult
			if err := json.Unmarshal([]byte(outs[i].String()), &r); err != nil {
				t.Fatalf("child %d said %q: %v", i, outs[i].String(), err)
			}
			total.Forwarded += r.Forwarded
			total.NoReason += r.NoReason
			for k, v := range r.Denied {
				total.Denied[k] += v
			}
		}
		if n := total.Denied["mandate_unverified"]; n > 0 {
			t.Fatalf("%d attempts denied mandate_unverified: a process raced without the committed mandate", n)
		}
	}
}

// TestDailyCapUnderRace: 8 goroutines here and 4 other processes race orders at a cap of 20.
// Exactly 20 reach a broker, every other attempt is denied with a reason, the counter reads 20.
func TestDailyCapUnderRace(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := livetest.Root(t)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 20`, 1)
	livetest.Commit(t, root, "paper", doc, time.Now())
	wait := raceFleet(t, root, 4)
	total := raceOrders(root, 8)
	wait(&total)
	if total.Forwarded != 20 {
		t.Fatalf("%d orders forwarded across 5 processes, want exactly 20 (denied %v)", total.Forwarded, total.Denied)
	}
	if total.NoReason != 0 {
		t.Fatalf("%d attempts ended without a forward or a reason", total.NoReason)
	}
	if got := counter.ReadDailyCount(root, "paper", time.Now()); got != 20 {
		t.Fatalf("counter reads %d, want 20", got)
	}
	t.Logf("forwarded 20; denied %v", total.Denied)
}

// TestHaltFromAnotherProcessStopsTheLoop: an agent loop fires orders as fast as it can while
// another process creates HALT. No order whose locked halt check came after the file existed
// is forwarded, and in audit order nothing is accepted after the first halted denial.
func TestHaltFromAnotherProcessStopsTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	root := livetest.Root(t)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	livetest.Commit(t, root, "paper", doc, time.Now())
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 3, Symbols: paper.DefaultSymbols()}, Cash: money.FromInt(10_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	var decisions []gate.Decision
	audit := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Audit: audit, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(root), OnDecision: func(d gate.Decision) { decisions = append(decisions, d) }}
	cmd := child(t, "halt", root.Dir(), "COCKPIT_HELPER_DELAY=300ms")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	halted := 0
	for i := 0; halted < 50 && i < 200000; i++ {
		in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("1")}
		if d := g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in}); d.Reason == live.ReasonHalted {
			halted++
		}
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Wait()
	var before, after int64
	if _, err := fmt.Sscan(line, &before, &after); err != nil {
		t.Fatalf("halting process said %q", line)
	}
	existed := time.Unix(0, after)
	forwarded, firstHalted := 0, -1
	for i, d := range decisions {
		if d.Reason == live.ReasonHalted && firstHalted < 0 {
			firstHalted = i
		}
		if !d.Forwarded {
			continue
		}
		forwarded++
		if !d.LockedAt.Before(existed) || !d.StartedAt.Before(existed) {
			t.Fatalf("order %d forwarded although its gate check (started %v, locked %v) came after HALT existed (%v)",
				i, d.StartedAt, d.LockedAt, existed)
		}
		if firstHalted >= 0 {
			t.Fatalf("order %d forwarded after the first halted denial (%d)", i, firstHalted)
		}
	}
	recs := audit.Records()
	sawHalt := false
	for i, r := range recs {
		if r.Reason == live.ReasonHalted {
			sawHalt = true
		} else if sawHalt && r.Outcome == live.OutcomeAccepted {
			t.Fatalf("audit record %d accepted after a halted denial", i)
		}
	}
	if forwarded == 0 || firstHalted < 0 {
		t.Fatalf("the test proved nothing: %d forwarded, first halted at %d", forwarded, firstHalted)
	}
	t.Logf("%d orders forwarded before HALT, first halted denial at decision %d", forwarded, firstHalted)
}

// TestEveryThirdCallFails: the count, journal and audit agree with what the broker accepted.
func TestEveryThirdCallFails(t *testing.T) {
	root := livetest.Root(t)
	clock := livetest.NewClock(livetest.Epoch)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000`, 1)
	livetest.Commit(t, root, "paper", doc, clock.Now())
	// Every third call of each kind fails, cycling through an error reply, a reply lost after
	// the broker acted, and a request lost before it arrived.
	kinds := []paper.FaultKind{paper.ErrorReply, paper.TimeoutAfter, paper.TimeoutBefore}
	perOp := map[string]int{}
	faults := &paper.Faults{Plan: func(op string, _ int) paper.FaultKind {
		perOp[op]++
		if n := perOp[op]; n%3 == 0 {
			return kinds[(n/3)%3]
		}
		return paper.NoFault
	}}
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 9, Symbols: paper.DefaultSymbols()}, Now: clock.Now, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	audit, journal := &auditsink.Memory{}, &live.MemoryJournal{}
	g := &gate.Gate{Root: root, Now: clock.Now, Audit: audit, Journal: journal, Mandates: livetest.Ledger(root)}
	var ids []string
	for i := 0; i < 90; i++ {
		clock.Advance(time.Second)
		// Quantity orders add a quote call, so the failures land on every kind of call.
		in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: amt(fmt.Sprint(100 + i))}
		if i%2 == 1 {
			in.NotionalUSD, in.Quantity = nil, amt("0.5")
		}
		d := g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in})
		if d.ClientOrderID != "" {
			ids = append(ids, d.ClientOrderID)
		}
	}
	atBroker := map[string]bool{}
	for _, id := range ids {
		if _, err := p.OrderByClientID(context.Background(), id); err == nil {
			atBroker[id] = true
		}
	}
	if got := counter.ReadDailyCount(root, "paper", clock.Now()); got != len(atBroker) {
		t.Fatalf("counter %d, broker accepted %d", got, len(atBroker))
	}
	for _, e := range journal.Entries() {
		if (e.State == live.JournalAccepted) != atBroker[e.ClientOrderID] {
			t.Fatalf("journal %s is %s, broker has it: %v", e.ClientOrderID, e.State, atBroker[e.ClientOrderID])
		}
	}
	accepted := 0
	for _, r := range audit.Records() {
		if r.Outcome == live.OutcomeAccepted {
			accepted++
			if !atBroker[r.ClientOrderID] {
				t.Fatalf("audit says %s accepted; the broker never had it", r.ClientOrderID)
			}
		}
	}
	if accepted != len(atBroker) || len(atBroker) == 0 || len(atBroker) == len(ids) {
		t.Fatalf("audit accepted %d, broker %d of %d forwarded", accepted, len(atBroker), len(ids))
	}
	t.Logf("%d forwards, %d accepted by the broker, counter and journal agree; fault plan: %d calls", len(ids), len(atBroker), len(faults.Calls()))
}

// bigBook opens 50 positions and 1,000 resting orders on a 50-symbol paper market.
func bigBook(t *testing.T, faults *paper.Faults) (*paper.Broker, *gate.Gate, []live.Order) {
	t.Helper()
	var specs []paper.SymbolSpec
	for i := 0; i < 50; i++ {
		specs = append(specs, paper.SymbolSpec{Symbol: fmt.Sprintf("S%02d", i), Start: money.FromInt(int64(20 + i)), Vol: 0.2, SpreadBps: 4})
	}
	clock := livetest.NewClock(livetest.Epoch)
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 5, Symbols: specs}, Now: clock.Now, Faults: faults, Cash: money.FromInt(1_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		side := live.Buy
		if i%3 == 0 {
			side = live.Sell
		}
		if _, err := p.PlaceOrder(ctx, live.OrderRequest{Symbol: fmt.Sprintf("S%02d", i), Side: side, Quantity: amt(fmt.Sprint(1 + i%7))}); err != nil {
			t.Fatal(err)
		}
	}
	low := money.MustParse("0.5")
	var resting []live.Order
	for i := 0; i < 1000; i++ {
		o, err := p.PlaceOrder(ctx, live.OrderRequest{Symbol: fmt.Sprintf("S%02d", i%50), Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &low})
		if err != nil {
			t.Fatal(err)
		}
		resting = append(resting, o)
	}
	g := &gate.Gate{Root: livetest.Root(t), Now: clock.Now, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{}}
	return p, g, resting
}

func TestFlattenThousandOrdersFiftyPositions(t *testing.T) {
	p, g, _ := bigBook(t, nil)
	rep := g.Flatten(context.Background(), p, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("op", "t")})
	if !rep.Flat() || len(rep.Cancelled) != 1000 || len(rep.Closes) != 50 || len(rep.Errors) != 0 {
		t.Fatalf("%s: cancelled %d, closes %d, errors %v", rep.Summary(), len(rep.Cancelled), len(rep.Closes), rep.Errors)
	}
}

func TestFlattenNamesExactlyTheStrandedOrders(t *testing.T) {
	faults := &paper.Faults{RejectCancels: map[string]bool{}}
	p, g, resting := bigBook(t, faults)
	rng := rand.New(rand.NewSource(11))
	var stranded []string
	for _, i := range rng.Perm(len(resting))[:7] {
		faults.RejectCancels[resting[i].ID] = true
		stranded = append(stranded, resting[i].ID)
	}
	sort.Strings(stranded)
	rep := g.Flatten(context.Background(), p, "paper", gate.FlattenOptions{ClosePositions: true, Settle: 10 * time.Millisecond})
	want := fmt.Sprintf("NOT FLAT: 7 orders still resting (%s)", strings.Join(stranded, ", "))
	if rep.Summary() != want {
		t.Fatalf("summary\n %s\nwant\n %s", rep.Summary(), want)
	}
	if len(rep.Positions) != 0 || len(rep.Cancelled) != 993 {
		t.Fatalf("positions left %d, cancelled %d", len(rep.Positions), len(rep.Cancelled))
	}
}
