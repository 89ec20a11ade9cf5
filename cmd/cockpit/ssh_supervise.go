package main

import (
	"context"
	"io"

	"cockpit/session"
	"cockpit/session/supervise"
)

// sshSupervise is what serve-ssh serves on a root another process trades: every connection
// supervises that owner (halts here, cancel/close/flatten/block through its command queue,
// approvals through the store), each action audited as the connection's key.
func (a *App) sshSupervise(home string) (*sshTarget, error) {
	root, err := a.root(home)
	if err != nil {
		return nil, err
	}
	env := a.env()
	env.Stderr = io.Discard // a flatten with the owner gone reconciles here (audited, not printed)
	srt, err := session.OpenRuntime(env, root)
	if err != nil {
		return nil, err
	}
	sup, err := supervise.Open(srt, srt.Config.Cockpit.Broker)
	if err != nil {
		srt.Close()
		return nil, err
	}
	return &sshTarget{be: sup, audit: srt.Audit, id: sup.ID(), cfg: srt.Config, poll: supervisePoll, log: srt.Log,
		notes: []string{"another process owns the " + sup.Key() + " account: this screen supervises it (halts here, cancel/close/flatten run in the owner)"},
		run:   func(ctx context.Context) { <-ctx.Done() },
		until: func(ctx context.Context) (context.Context, context.CancelFunc) { return context.WithCancel(ctx) },
		stop:  func(*App, string) int { return exitOK },
		close: func() { sup.Close(); srt.Close() }}, nil
}
