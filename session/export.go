package session

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/termsafe"
	"cockpit/store"
)

// EventJSON renders an event for --json output and exports.
func EventJSON(e store.Event) *jsonv.Object {
	payload, err := jsonv.ParseString(e.Payload, jsonv.Options{NonFinite: true})
	if err != nil {
		payload = e.Payload
	}
	return jsonv.ObjectOf("seq", jsonv.Number(strconv.FormatInt(e.Seq, 10)), "ts", live.FormatTimestamp(e.Time),
		"session_id", e.SessionID, "actor", jsonv.ObjectOf("kind", e.ActorKind, "id", e.ActorID, "turn_id", e.TurnID, "tool_call_id", e.ToolCallID),
		"type", e.Type, "outcome", e.Outcome, "reason", e.Reason, "broker", e.Broker, "tool", e.Tool,
		"order_id", e.OrderID, "client_order_id", e.ClientOrderID, "approval_id", e.ApprovalID, "summary", e.Summary,
		"payload", payload, "prev_hash", e.PrevHash, "hash", e.Hash)
}

// ExportEvents writes every event, oldest first, in pages, as csv, jsonl or a replay script;
// it returns how many events it read. Every export prints as it says: a CSV cell shows its
// control characters escaped (termsafe.Text; the payload, a JSON document, as JSON escapes)
// and a cell that would start a spreadsheet formula is prefixed with a quote; JSON lines
// write what a terminal acts on as JSON escapes (termsafe.JSON).
func ExportEvents(ctx context.Context, db *store.DB, format string, w io.Writer) (int, error) {
	cw := csv.NewWriter(w)
	if format == "csv" {
		cw.Write([]string{"seq", "ts", "session_id", "actor_kind", "actor_id", "type", "outcome", "reason", "broker",
			"tool", "order_id", "client_order_id", "approval_id", "summary", "payload", "prev_hash", "hash"})
	}
	n := 0
	var after int64
	for {
		evs, err := db.Events(ctx, store.Filter{AfterSeq: after, Ascending: true, Limit: 1000})
		if err != nil {
			return n, err
		}
		for _, e := range evs {
			switch format {
			case "csv":
				row := []string{strconv.FormatInt(e.Seq, 10), live.FormatTimestamp(e.Time), e.SessionID, e.ActorKind, e.ActorID,
					e.Type, e.Outcome, e.Reason, e.Broker, e.Tool, e.OrderID, e.ClientOrderID, e.ApprovalID, e.Summary,
					string(termsafe.JSON([]byte(e.Payload))), e.PrevHash, e.Hash}
				for i, c := range row {
					row[i] = csvCell(c)
				}
				cw.Write(row)
			case "jsonl":
				b, _ := jsonv.Marshal(EventJSON(e), jsonv.Compact)
				w.Write(append(termsafe.JSON(b), '\n'))
			case "replay":
				if line, ok := replayLine(e); ok {
					w.Write(append(termsafe.JSON(line), '\n'))
				}
			}
			after = e.Seq
			n++
		}
		if len(evs) < 1000 {
			break
		}
	}
	cw.Flush()
	return n, cw.Error()
}

// csvCell is a CSV cell that prints as it says and opens as text in a spreadsheet: control
// characters escaped, and a quote before a leading =, +, - or @ (a formula to Excel and
// LibreOffice: a cell an agent wrote could otherwise run =HYPERLINK or =WEBSERVICE).
func csvCell(s string) string {
	s = termsafe.Text(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

// replayLine turns an agent's tool call recorded in the audit into a replay-script line:
// {"ts": when it was called, "tool": name, "args": {...}}. Only a call's terminal record
// counts (breach and review records of the same call are skipped), and LLM requests are not
// tool calls.
func replayLine(e store.Event) ([]byte, bool) {
	if e.ActorKind != string(live.ActorAgent) || e.Tool == "" || e.Tool == "cli" || e.Tool == engine.LLMTool {
		return nil, false
	}
	payload, err := jsonv.ParseString(e.Payload, jsonv.Options{NonFinite: true})
	if err != nil {
		return nil, false
	}
	dec, _ := payload.(*jsonv.Object).Get("decision")
	if d, ok := dec.(*jsonv.Object); ok {
		if v, _ := d.Get("decision"); v != string(live.DecisionAllow) && v != string(live.DecisionDeny) && v != string(live.DecisionCancel) {
			return nil, false
		}
	}
	req, _ := payload.(*jsonv.Object).Get("request")
	args, ok := req.(*jsonv.Object)
	if !ok {
		args = jsonv.NewObject()
	}
	if e.Tool == "cancel_order" { // the gate records {action, order_id}; the tool takes order_id
		id, _ := args.Get("order_id")
		args = jsonv.ObjectOf("order_id", id)
	}
	line := jsonv.ObjectOf("ts", live.FormatTimestamp(e.Time), "tool", e.Tool, "args", args)
	b, err := jsonv.Marshal(line, jsonv.Compact)
	return b, err == nil
}
