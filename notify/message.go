// Package notify sends one-way notifications (issue 29 item 4) to the sinks configured under
// [notify]: a generic JSON webhook, ntfy, Slack- and Discord-compatible incoming webhooks and
// the Telegram Bot API. Each sink has its own bounded queue and one worker, so a dead or slow
// sink never delays an order nor another sink: Post only appends (dropping the oldest message
// when the queue is full, and counting it). Messages are redacted like the log, rate-limited
// per sink and event, retried with backoff, and every send is audited (sent or failed, the sink
// and the event; never the URL or the token). Nothing a sink answers is acted on.
package notify

import (
	"strconv"
	"time"
)

// Event names what a message is about; a sink's events filter on it.
type Event string

// Events.
const (
	EvReview         Event = "review"          // a review waits for a human
	EvHalt           Event = "halt"            // trading halted (any source)
	EvLossLimit      Event = "loss_limit"      // a halt tripped by a loss limit
	EvFleetDown      Event = "fleet_down"      // this host lost its fleet link
	EvBrokerDown     Event = "broker_down"     // the broker link failed
	EvPluginDisabled Event = "plugin_disabled" // the WASM plugin agent was disabled
	EvFlattenFailed  Event = "flatten_failed"  // a flatten did not end flat and verified
)

// Events lists every event, in the order the config template names them.
var Events = []Event{EvReview, EvHalt, EvLossLimit, EvFleetDown, EvBrokerDown, EvPluginDisabled, EvFlattenFailed}

// Priority is how loudly a message should arrive (ntfy maps it to its 1–5 scale).
type Priority int

// Priorities.
const (
	PriorityDefault Priority = iota
	PriorityHigh
	PriorityUrgent
)

// String is the priority's name in the webhook JSON.
func (p Priority) String() string {
	switch p {
	case PriorityHigh:
		return "high"
	case PriorityUrgent:
		return "urgent"
	}
	return "default"
}

// Message is one notification. Title and Text are redacted by Post before any sink sees them.
type Message struct {
	Event    Event
	Title    string
	Text     string
	Priority Priority
	Ref      string    // what it is about: a review id, a broker key
	Time     time.Time // when it happened
	Deadline time.Time // a review's deadline (zero otherwise)

	dropped    int // messages this sink's queue dropped before this one (said in the text)
	suppressed int // messages of this event the rate limit held back before this one
}

// body is the text a sink sends: Text plus what the queue and the rate limit held back.
func (m Message) body() string {
	s := m.Text
	if m.suppressed > 0 {
		s += "\n(" + strconv.Itoa(m.suppressed) + " earlier " + string(m.Event) + " notification(s) held back by the rate limit)"
	}
	if m.dropped > 0 {
		s += "\n(" + strconv.Itoa(m.dropped) + " notification(s) dropped: this sink's queue was full)"
	}
	return s
}
