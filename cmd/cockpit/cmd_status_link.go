package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"cockpit/config"
	"cockpit/session"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

// addBrokerLinks sets each broker's mode from the config (a paper-mode [brokers.<key>] table
// is PAPER) and, for a configured real broker, its link: one account read through the
// connector, with its health and latency.
func (a *App) addBrokerLinks(home string, r *jsonv.Object) {
	root, err := a.root(home)
	if err != nil {
		return
	}
	cfg, err := config.Load(root)
	if err != nil {
		return // config trouble is reported on its own line
	}
	// No store is opened (status never creates one); the connector logs nowhere.
	rt := &session.Runtime{Env: a.env(), Root: root, Config: cfg, Log: slog.New(slog.DiscardHandler)}
	brokers, _ := r.Get("brokers")
	list, _ := brokers.([]any)
	for _, raw := range list {
		b, _ := raw.(*jsonv.Object)
		if b == nil {
			continue
		}
		name, _ := b.Get("broker")
		key, _ := name.(string)
		isLive := rt.IsLive(key)
		b.Set("paper", !isLive)
		if live.IsPaperBroker(key) {
			continue
		}
		bc, ok := rt.Config.Broker(key)
		if !ok {
			continue
		}
		link := jsonv.ObjectOf("kind", bc.Kind)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		h, tools, err := rt.ProbeBroker(ctx, key)
		cancel()
		if tools != nil {
			link.Set("tools", toolsJSON(tools))
		}
		switch {
		case errors.Is(err, session.ErrLiveNotConfirmed):
			link.Set("checked", false)
			link.Set("error", "not checked: a live table is opened only by a run with --live")
		case err != nil:
			link.Set("connected", false)
			link.Set("error", redact.Secrets(err.Error()))
		default:
			link.Set("connected", h.Connected)
			link.Set("latency_ms", jsonv.Number(fmt.Sprintf("%.1f", float64(h.LastLatency.Microseconds())/1000)))
			if h.LastError != "" {
				link.Set("error", h.LastError)
			}
		}
		b.Set("link", link)
	}
}

// linkLine is the status line of a broker's link, "" for the embedded paper broker.
func linkLine(b *jsonv.Object) string {
	l := obj(b, "link")
	if l == nil {
		return ""
	}
	kind, _ := l.Get("kind")
	state := "DOWN"
	if c, _ := l.Get("connected"); c == true {
		state = "connected"
	} else if c, _ := l.Get("checked"); c == false {
		state = "not checked"
	}
	line := fmt.Sprintf("%v, %s", kind, state)
	if ms, ok := l.Get("latency_ms"); ok {
		line += fmt.Sprintf(", last request %v ms", ms)
	}
	if e, ok := l.Get("error"); ok {
		line += fmt.Sprintf(" (%v)", e)
	}
	return line
}

// withConfigured adds the [brokers.<key>] tables of the config to the brokers to report
// (all of them unless one was asked for).
func withConfigured(root live.Root, brokers []string, asked string) []string {
	if asked != "" {
		return brokers
	}
	cfg, err := config.Load(root)
	if err != nil {
		return brokers
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Brokers)) {
		if !slices.Contains(brokers, k) {
			brokers = append(brokers, k)
		}
	}
	return brokers
}
