package tui

import (
	tea "charm.land/bubbletea/v2"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// engineMsg is an engine event on the screen: every kind is its own message type, each
// carrying the generation of the engine run that produced it (older ones are dropped).
type engineMsg interface{ generation() uint64 }

// Gen is the engine run an event message came from.
type Gen uint64

func (g Gen) generation() uint64 { return uint64(g) }

// TurnMsg is an agent turn starting (Started) or ending with its last word.
type TurnMsg struct {
	Gen
	Turn    int
	Started bool
	Message string
}

// ToolCallMsg is a finished tool call.
type ToolCallMsg struct {
	Gen
	Agent, Tool string
	Result      *engine.Result
}

// DecisionMsg is the gate's decision on an order.
type DecisionMsg struct {
	Gen
	Decision *gate.Decision
}

// OrderUpdateMsg is the broker's fill, cancel or rejection of an order.
type OrderUpdateMsg struct {
	Gen
	Update *live.OrderUpdate
}

// ReviewMsg is a review item created, resolved, or the outcome of an approved order.
type ReviewMsg struct {
	Gen
	Kind engine.EventKind // EvReviewCreated, EvReviewResolved or EvReviewOutcome
	Item *live.ReviewItem
}

// HaltMsg is a change of the trading state.
type HaltMsg struct {
	Gen
	State *halt.State
}

// FlattenReportMsg is the halt action's verified answer.
type FlattenReportMsg struct {
	Gen
	Report gate.FlattenReport
}

// FindingMsg is an injection-scanner finding in a tool's result.
type FindingMsg struct {
	Gen
	Tool    string
	Finding *engine.Finding
}

// ErrorMsg is an error the engine reports.
type ErrorMsg struct {
	Gen
	Agent, Message string
}

// NoteMsg is something the agent said (untrusted text).
type NoteMsg struct {
	Gen
	Message string
}

// EngineMsg turns one engine event into the screen's message of its kind (nil for kinds the
// screen does not show: LLM usage, a halt action's progress without a report).
func EngineMsg(ev engine.Event) tea.Msg {
	g := Gen(ev.Gen)
	switch ev.Kind {
	case engine.EvTurnStarted, engine.EvTurnEnded:
		return TurnMsg{Gen: g, Turn: ev.Turn, Started: ev.Kind == engine.EvTurnStarted, Message: ev.Message}
	case engine.EvToolCall:
		return ToolCallMsg{Gen: g, Agent: ev.Agent, Tool: ev.Tool, Result: ev.Result}
	case engine.EvDecision:
		return DecisionMsg{Gen: g, Decision: ev.Decision}
	case engine.EvOrderUpdate:
		return OrderUpdateMsg{Gen: g, Update: ev.Order}
	case engine.EvReviewCreated, engine.EvReviewResolved, engine.EvReviewOutcome:
		return ReviewMsg{Gen: g, Kind: ev.Kind, Item: ev.Review}
	case engine.EvHalt:
		return HaltMsg{Gen: g, State: ev.Halt}
	case engine.EvFlatten:
		if ev.Report != nil {
			return FlattenReportMsg{Gen: g, Report: *ev.Report}
		}
	case engine.EvFinding:
		return FindingMsg{Gen: g, Tool: ev.Tool, Finding: ev.Finding}
	case engine.EvError:
		return ErrorMsg{Gen: g, Agent: ev.Agent, Message: ev.Message}
	case engine.EvNote:
		return NoteMsg{Gen: g, Message: ev.Message}
	}
	return nil
}

// SendEvents adapts a program's Send to a follower of engine events: each event goes to the
// screen as the message of its kind.
func SendEvents(send func(tea.Msg)) func(engine.Event) {
	return func(ev engine.Event) {
		if m := EngineMsg(ev); m != nil {
			send(m)
		}
	}
}
