package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live/atomicfile"
	"cockpit/live/mcpbroker/mcppaper"
	"cockpit/live/paper"
)

// mcpPaperServerVerb is a hidden verb, a test and demo aid: it serves the embedded paper
// broker as an MCP server on stdin/stdout under a profile's tool names, so a [brokers.<key>]
// kind = "mcp" table can point its command at cockpit itself. It is not a broker and guards
// nothing; stdout carries only the protocol.
const mcpPaperServerVerb = "mcp-paper-server"

func (a *App) cmdMCPPaperServer(args []string) int {
	fs := flag.NewFlagSet(mcpPaperServerVerb, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	profile := fs.String("profile", "alpaca", "tool names to serve: alpaca | robinhood")
	seed := fs.Int64("seed", 1, "market seed")
	state := fs.String("state", "", "file that keeps the paper account between runs (default: none, a fresh account)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	cfg := paper.Config{Key: "mcp-paper", Market: paper.DefaultMarket(*seed), Now: a.Now, History: 2 * time.Hour}
	if *state != "" {
		if data, err := os.ReadFile(*state); err == nil {
			cfg.State = &paper.State{}
			if err := json.Unmarshal(data, cfg.State); err != nil {
				return a.failf("%s: %v", *state, err)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return a.failf("%v", err)
		}
		cfg.Persist = func(data []byte) error { return atomicfile.WriteFile(*state, data, 0o600) }
	}
	b, err := paper.New(cfg)
	if err != nil {
		return a.failf("%v", err)
	}
	srv, err := mcppaper.New(b, *profile, mcppaper.Options{Now: a.Now})
	if err != nil {
		return a.failf("%v", err)
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(a.Stdin), Writer: nopWriteCloser{a.Stdout}}
	if err := srv.Run(context.Background(), t); err != nil && !errors.Is(err, io.EOF) {
		return a.failf("%v", err)
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
