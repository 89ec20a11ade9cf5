package readmodel

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// OwnerStale is how old an owner's heartbeat may be before it is called gone.
const OwnerStale = 5 * time.Second

// OwnerSource reads the owner row of a broker account (the store does).
type OwnerSource interface {
	OwnerOf(ctx context.Context, broker string) (store.Owner, bool, error)
}

// unknown is what a field the owner record lacks prints as.
const unknown = "unknown"

// OwnerJSON is the owner of broker for status: nil when no process has recorded itself as
// its owner; fields the record lacks are null, and "describe" says it all for people.
func OwnerJSON(src OwnerSource, broker string, now time.Time) any {
	o, found, err := src.OwnerOf(context.Background(), broker)
	if err != nil {
		return jsonv.ObjectOf("error", err.Error(), "describe", "unknown (its owner row could not be read: "+err.Error()+")")
	}
	if !found {
		return nil
	}
	orNull := func(s string) any {
		if s == unknown || s == "" {
			return nil
		}
		return s
	}
	var pid any
	if o.PID > 0 {
		pid = jsonv.Number(strconv.Itoa(o.PID))
	}
	return jsonv.ObjectOf("kind", orNull(o.Kind), "pid", pid, "host", orNull(o.Host),
		"since", orNull(timeText(o.StartedAt, live.FormatTimestamp)), "heartbeat", orNull(timeText(o.HeartbeatAt, live.FormatTimestamp)),
		"alive", o.Alive(now, OwnerStale), "describe", DescribeOwner(o, now))
}

// DescribeOwner names an owner for people: "serve-mcp (pid 42 on desk, since …)", with how
// old its heartbeat is when it is stale.
func DescribeOwner(o store.Owner, now time.Time) string {
	s := fmt.Sprintf("%s (pid %s on %s, since %s)", orUnknown(o.Kind), pidText(o.PID), orUnknown(o.Host), timeText(o.StartedAt, rfc3339))
	if !o.Alive(now, OwnerStale) {
		if o.HeartbeatAt.IsZero() || o.HeartbeatAt.Unix() == 0 {
			return s + ", no heartbeat recorded"
		}
		return s + fmt.Sprintf(", last heartbeat %s ago", now.Sub(o.HeartbeatAt).Round(time.Second))
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

func pidText(pid int) string {
	if pid <= 0 {
		return unknown
	}
	return strconv.Itoa(pid)
}

// rfc3339 is t in UTC to the second, for people.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// timeText is t in layout, "unknown" when it was never recorded.
func timeText(t time.Time, layout func(time.Time) string) string {
	if t.IsZero() || t.Unix() == 0 {
		return unknown
	}
	return layout(t)
}
