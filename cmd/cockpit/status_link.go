package main

import (
	"fmt"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/session"
)

// addBrokerLinks sets, on each broker of the report that has a [brokers.<key>] table, its
// kind and mode (a mode = "paper" table is PAPER) and the link a probe finds: connected or
// not, the round trip in ms, and the redacted error. The probe trades nothing.
func (a *App) addBrokerLinks(root live.Root, report *jsonv.Object) {
	cfg, err := config.Load(root)
	if err != nil || len(cfg.Brokers) == 0 {
		return
	}
	rt := &session.Runtime{Env: a.env(), Root: root, Config: cfg}
	list, _ := report.Value("brokers").([]any)
	for _, raw := range list {
		b, _ := raw.(*jsonv.Object)
		name, _ := b.Value("broker").(string)
		bc, ok := cfg.Broker(name)
		if !ok {
			continue
		}
		b.Set("paper", !bc.Live())
		b.Set("kind", bc.Kind)
		b.Set("mode", bc.Mode)
		h, ok := rt.ProbeBroker(name)
		if !ok {
			continue
		}
		link := jsonv.ObjectOf("connected", h.Connected, "latency_ms", jsonv.Number(fmt.Sprint(h.LastLatency.Milliseconds())),
			"checked", live.FormatTimestamp(h.Checked))
		if h.LastError != "" {
			link.Set("error", h.LastError)
		}
		b.Set("link", link)
	}
}

// linkLine is the status line of a probed link.
func linkLine(l *jsonv.Object) string {
	ms := l.Value("latency_ms")
	if up, _ := l.Value("connected").(bool); up {
		return fmt.Sprintf("connected, %vms to connect and list tools", ms)
	}
	e, _ := l.Value("error").(string)
	return fmt.Sprintf("DOWN after %vms: %s", ms, e)
}
