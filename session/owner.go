package session

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/store"
)

// Owner loop cadences (issue 14): the heartbeat and live state every second, the command
// queue polled every 100 ms.
const (
	HeartbeatEvery   = time.Second
	CommandPollEvery = 100 * time.Millisecond
	// OwnerStale is how old a heartbeat may be before supervisors call the owner gone.
	OwnerStale = readmodel.OwnerStale
)

// ownerState is the session's owner role: its kind, the MCP clients it serves and the screen's
// last snapshot (reused instead of reading the broker twice).
type ownerState struct {
	kind    string
	mu      sync.Mutex
	clients func() []string
	// sshRoles counts the screens open over SSH by role (serve-ssh; the metrics read it)
	sshRoles func() map[string]int
	last     readmodel.Snapshot
	lastAt   time.Time
}

// ownerKind names the owner row's kind from the session's mode.
func ownerKind(mode string) string {
	switch mode {
	case "tui":
		return "screen"
	case "serve-mcp", "serve-ssh":
		return mode
	}
	return "headless"
}

// SetClients sets where the owner reads the MCP client sessions it serves (serve-mcp).
func (s *Session) SetClients(fn func() []string) {
	s.owner.mu.Lock()
	s.owner.clients = fn
	s.owner.mu.Unlock()
}

// noteSnapshot keeps the screen's last snapshot for the owner's live state.
func (o *ownerState) noteSnapshot(snap readmodel.Snapshot) {
	o.mu.Lock()
	o.last, o.lastAt = snap, time.Now()
	o.mu.Unlock()
}

// runOwner is the owner loop until ctx ends: the owner row and its heartbeat, the live state,
// and the operator commands supervisors queue. A clean end clears the owner row.
func (s *Session) runOwner(ctx context.Context) {
	db := s.rt.DB
	host, _ := os.Hostname()
	now := s.rt.Now()
	if err := db.SetOwner(ctx, store.Owner{Broker: s.key, PID: os.Getpid(), Host: host, Kind: s.owner.kind, Agent: s.AgentName(),
		SessionID: s.id, StartedAt: now, HeartbeatAt: now}); err != nil {
		s.rt.Log.Error("owner row", "err", err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.runCommands(ctx) }()
	go func() { defer wg.Done(); s.heartbeat(ctx) }() // apart: a slow broker read never delays it
	defer func() {
		wg.Wait()
		if err := db.ClearOwner(context.Background(), s.key, s.id); err != nil {
			s.rt.Log.Error("clear owner row", "err", err)
		}
	}()
	s.publishLive(ctx, false)
	beat := time.NewTicker(HeartbeatEvery)
	defer beat.Stop()
	events := s.eng.Bus.Subscribe(ctx, 64)
	soon := time.NewTimer(time.Hour)
	soon.Stop()
	armed, again := false, false // a publish is due; an event came after it was armed
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			s.publishLive(ctx, false)
		case ev, ok := <-events:
			// An order placed, filled or cancelled shows within OrderPublishDelay, one broker
			// read per burst of events, instead of at the next beat.
			if !ok || (ev.Kind != engine.EvDecision && ev.Kind != engine.EvOrderUpdate) {
				continue
			}
			if armed {
				again = true
				continue
			}
			soon.Reset(OrderPublishDelay)
			armed = true
		case <-soon.C:
			s.publishLive(ctx, true)
			armed, again = again, false
			if armed { // events during that delay: read once more after them
				soon.Reset(OrderPublishDelay)
			}
		}
	}
}

// heartbeat stamps the owner row every HeartbeatEvery until ctx ends.
func (s *Session) heartbeat(ctx context.Context) {
	beat := time.NewTicker(HeartbeatEvery)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			if err := s.rt.DB.Heartbeat(ctx, s.key, s.id, s.rt.Now()); err != nil && ctx.Err() == nil {
				s.rt.Log.Error("owner heartbeat", "err", err)
			}
		}
	}
}

// OrderPublishDelay is how soon after an order event the owner publishes its live state.
const OrderPublishDelay = 50 * time.Millisecond

// WatchWindow is how long after a supervisor's last look the owner keeps publishing its live
// state: nobody watching, it reads nothing from the broker for supervisors.
const WatchWindow = 5 * time.Second

// publishLive writes the live state while a supervisor watches (a new version only when it
// changed): from the screen's snapshot of the last second when a screen runs, else (or when
// reread) from one snapshot read now.
func (s *Session) publishLive(ctx context.Context, reread bool) {
	if row, found, err := s.rt.DB.OwnerOf(ctx, s.key); err != nil || !found || s.rt.Now().Sub(row.WatchedAt) > WatchWindow {
		return
	}
	o := &s.owner
	o.mu.Lock()
	snap, fresh, clients := o.last, time.Since(o.lastAt) < 3*HeartbeatEvery/2, o.clients
	o.mu.Unlock()
	if reread || !fresh {
		snap = s.Backend().Snapshot(ctx)
	}
	ls := snap.Owned
	ls.Orders = withoutReplies(snap.Orders)
	if clients != nil {
		ls.Clients = clients()
	}
	body, err := json.Marshal(ls)
	if err != nil {
		s.rt.Log.Error("live state", "err", err)
		return
	}
	if _, err := s.rt.DB.PutLiveState(ctx, s.key, body); err != nil && ctx.Err() == nil {
		s.rt.Log.Error("live state", "err", err)
	}
}

// runCommands polls the command queue and runs each command it claims, in order, until ctx
// ends.
func (s *Session) runCommands(ctx context.Context) {
	tick := time.NewTicker(CommandPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if ok, err := s.rt.DB.HasPending(ctx, s.key); err != nil || !ok {
			continue
		}
		for ctx.Err() == nil {
			c, err := s.rt.DB.ClaimCommand(ctx, s.key, s.id, store.CommandTTL)
			if err != nil || c == nil {
				break
			}
			state, result := s.runCommand(ctx, *c)
			if err := s.rt.DB.FinishCommand(context.Background(), c.ID, state, result); err != nil {
				s.rt.Log.Error("finish command", "id", c.ID, "err", err)
			}
		}
	}
}

// CommandArgs are a queued command's arguments.
type CommandArgs struct {
	OrderID string `json:"order_id,omitempty"`
	Symbol  string `json:"symbol,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// KeepPositions: a flatten that cancels resting orders only (`cockpit flatten` without
	// --close-positions when the mandate does not say flatten_on_halt).
	KeepPositions bool `json:"keep_positions,omitempty"`
}

// CommandResult is a finished command's result: the error, or the flatten's report.
type CommandResult struct {
	Error  string              `json:"error,omitempty"`
	Report *gate.FlattenReport `json:"report,omitempty"`
}

// runCommand executes one command through the screen's backend as the command's actor (the
// audit names the supervisor, in this session).
func (s *Session) runCommand(ctx context.Context, c store.Command) (state, result string) {
	var args CommandArgs
	var res CommandResult
	var err error
	if jerr := json.Unmarshal([]byte(c.Args), &args); jerr != nil {
		err = jerr
	} else {
		b, octx := s.Backend(), WithOperator(ctx, c.Actor)
		switch c.Kind {
		case "cancel":
			err = b.Cancel(octx, args.OrderID)
		case "close":
			err = b.ClosePosition(octx, args.Symbol)
		case "block":
			err = b.Block(octx, args.Symbol, args.Reason)
		case "unblock":
			err = b.Unblock(octx, args.Symbol, args.Reason)
		case "flatten":
			rep := b.flatten(octx, !args.KeepPositions, "flatten from a supervisor", "operator flatten from a supervisor", func(p gate.FlattenProgress) {
				if data, jerr := json.Marshal(p); jerr == nil {
					s.rt.DB.ProgressCommand(ctx, c.ID, string(data))
				}
			})
			res.Report = &rep
		default:
			err = errUnknownCommand(c.Kind)
		}
	}
	state = store.CommandDone
	if err != nil {
		state, res.Error = store.CommandFailed, err.Error()
	}
	data, _ := json.Marshal(res)
	return state, string(data)
}

type errUnknownCommand string

func (e errUnknownCommand) Error() string { return "unknown command " + string(e) }

// withoutReplies copies orders without the broker's raw rows: a supervisor never needs them,
// and they are the likeliest place for a token.
func withoutReplies(orders []live.Order) []live.Order {
	out := make([]live.Order, len(orders))
	for i, o := range orders {
		o.Reply = nil
		out[i] = o
	}
	return out
}
