package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
)

// haltCase replays trip/clear/raw-write operations on a fresh root and compares the halt flag
// for each probe key and what the sentinels read back.
func haltCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	ops, _ := get(c, "ops").([]any)
	for i, raw := range ops {
		op := obj(raw)
		args, _ := get(op, "op").([]any)
		if len(args) == 0 {
			return failf("op %d: no operation", i)
		}
		name, _ := args[0].(string)
		switch name {
		case "trip":
			by, _ := args[1].(string)
			reason, _ := args[2].(string)
			path, err := halt.Trip(root, live.HaltSentinel, scopeOf(args[3]), by, reason, e.now)
			if err != nil {
				return failf("op %d trip: %v", i, err)
			}
			if want, ok := str(op, "path"); ok && filepath.Join(root.Dir(), want) != path {
				return failf("op %d trip wrote %s, oracle %s", i, path, want)
			}
			if diff := sentinelDiff(root, scopeOf(args[3]), get(op, "file")); diff != "" {
				return failf("op %d: %s", i, diff)
			}
		case "clear":
			existed, err := halt.Clear(root, live.HaltSentinel, scopeOf(args[1]))
			if err != nil {
				return failf("op %d clear: %v", i, err)
			}
			if want, ok := get(op, "returned").(bool); ok && want != existed {
				return failf("op %d clear returned %v, oracle %v", i, existed, want)
			}
		case "write_raw":
			text, _ := args[2].(string)
			path := root.SentinelPath(live.HaltSentinel, brokerArg(args[1]))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return failf("op %d: %v", i, err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return failf("op %d: %v", i, err)
			}
		default:
			return failf("op %d: unknown operation %q", i, name)
		}
	}
	flags := obj(get(c, "expected_halt_flag_set"))
	for _, m := range flags.Members() {
		want, _ := m.Value.(bool)
		var got bool
		if m.Key == "None" {
			got = halt.IsGloballyHalted(root)
		} else {
			key, ok := unquoteRepr(m.Key)
			if !ok {
				return failf("unreadable probe key %s", m.Key)
			}
			got = halt.IsHalted(root, key)
		}
		if got != want {
			return failf("halted(%s) = %v, oracle %v", m.Key, got, want)
		}
	}
	reads := obj(get(c, "expected_read_halt"))
	for _, m := range reads.Members() {
		scope := live.GlobalScope
		if m.Key != "global" {
			scope = live.BrokerScope(m.Key)
		}
		if diff := sentinelDiff(root, scope, m.Value); diff != "" {
			return failf("read %s: %s", m.Key, diff)
		}
	}
	return pass()
}

func brokerArg(v any) string {
	s, _ := v.(string)
	return s
}

func scopeOf(v any) live.Scope {
	if s, ok := v.(string); ok {
		return live.BrokerScope(s)
	}
	return live.GlobalScope
}

// sentinelDiff compares a sentinel's attribution with the oracle's (null = absent; volatile
// timestamps only need to be present).
func sentinelDiff(root live.Root, scope live.Scope, want any) string {
	got, err := halt.ReadSentinel(root, live.HaltSentinel, scope)
	if err != nil {
		return err.Error()
	}
	w := obj(want)
	switch {
	case w == nil && got == nil:
		return ""
	case w == nil:
		return fmt.Sprintf("sentinel exists (%s), oracle none", show(got.Raw))
	case got == nil:
		return fmt.Sprintf("no sentinel, oracle %s", show(want))
	}
	if w.Len() != got.Raw.Len() {
		return fmt.Sprintf("attribution %s, oracle %s", show(got.Raw), show(want))
	}
	for _, m := range w.Members() {
		g, ok := got.Raw.Get(m.Key)
		if !ok {
			return fmt.Sprintf("attribution lacks %q", m.Key)
		}
		if m.Value == "<volatile>" {
			if s, _ := g.(string); s == "" {
				return fmt.Sprintf("attribution %q is empty", m.Key)
			}
			if m.Key == "tripped_at" {
				if _, err := live.ParseExpiry(g.(string)); err != nil {
					return fmt.Sprintf("tripped_at %q is not a timestamp", g)
				}
			}
			continue
		}
		if !jsonv.Equal(m.Value, g) {
			return fmt.Sprintf("attribution %q = %s, oracle %s", m.Key, show(g), show(m.Value))
		}
	}
	return ""
}

// dailyCountCase writes the counter file, reads it, increments and compares the file after.
func dailyCountCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	day, _ := str(c, "today_utc")
	now, err := time.Parse("2006-01-02", day)
	if err != nil {
		return failf("bad today_utc %q", day)
	}
	now = now.Add(15 * time.Hour)
	const broker = "robinhood"
	if text, ok := get(c, "file_text").(string); ok {
		path := root.CounterPath(broker)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return failf("%v", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return failf("%v", err)
		}
	}
	wantRead, _ := floatOf(get(c, "expected_read"))
	if got := counter.ReadDailyCount(root, broker, now); float64(got) != wantRead {
		if wantRead < 0 && got == 0 {
			return deviation("DV9", "oracle trusts the negative count %v; cockpit reads 0", wantRead)
		}
		return failf("read %d, oracle %v", got, wantRead)
	}
	wantInc, _ := floatOf(get(c, "expected_increment_returns"))
	n, err := counter.IncrementDailyCount(root, broker, now)
	if err != nil {
		return failf("increment: %v", err)
	}
	if float64(n) != wantInc {
		return failf("increment returned %d, oracle %v", n, wantInc)
	}
	data, err := os.ReadFile(root.CounterPath(broker))
	if err != nil {
		return failf("%v", err)
	}
	want, _ := str(c, "expected_file_after_increment")
	got, err1 := jsonv.Parse(data, jsonv.Options{})
	exp, err2 := jsonv.ParseString(want, jsonv.Options{})
	if err1 != nil || err2 != nil || !jsonv.Equal(got, exp) {
		return failf("file after increment %s, oracle %s", data, want)
	}
	return pass()
}

// classificationCase classifies a tool with an optional curated map and MCP annotations.
func classificationCase(e *env, c *jsonv.Object) outcome {
	tool, _ := str(c, "tool")
	var curated map[string]live.ToolClass
	if name, ok := str(c, "curated_map"); ok {
		if curated = live.CuratedTools(name); curated == nil {
			return failf("no curated map for %q", name)
		}
	}
	hint, _ := obj(get(c, "annotations")).Get("readOnlyHint")
	got := live.Classify(curated, tool, hint)
	if want, _ := str(c, "expected"); string(got) != want {
		return failf("class %s, oracle %s", got, want)
	}
	return pass()
}

// expiryCase compares cockpit's one expiry parser with the reference gate's; where the gate and
// the reference runner disagree, cockpit follows the runner (DV7).
func expiryCase(e *env, c *jsonv.Object) outcome {
	expires, _ := str(c, "expires_at")
	nowText, _ := str(c, "now")
	now, err := live.ParseExpiry(nowText)
	if err != nil {
		return failf("bad now %q", nowText)
	}
	m := &live.Mandate{Consent: live.Consent{ExpiresAt: expires}}
	got := m.Expired(now)
	gate, _ := get(c, "expected_gate_expired").(bool)
	runner, _ := get(c, "expected_runner_expired").(bool)
	switch {
	case got == gate:
		return pass()
	case got == runner:
		return deviation("DV7", "gate says expired=%v, runner and cockpit %v", gate, got)
	}
	return failf("expired=%v, oracle gate %v", got, gate)
}
