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
		f := &fileAccount{path: *state, st: &paper.State{}}
		if data, err := os.ReadFile(*state); err == nil {
			cfg.State = &paper.State{}
			if err := json.Unmarshal(data, cfg.State); err != nil {
				return a.failf("%s: %v", *state, err)
			}
			json.Unmarshal(data, f.st) // the same document, decoded once for the broker and once for the file
		} else if !errors.Is(err, os.ErrNotExist) {
			return a.failf("%v", err)
		}
		cfg.Store = f
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

// fileAccount keeps the served paper account in one file, rewritten whole after each change
// (a demo aid: each save grows with the account, unlike the store's).
type fileAccount struct {
	path string
	st   *paper.State // the whole account as the file holds it
}

func (f *fileAccount) Save(c paper.Change) error {
	next, err := f.st.With(c)
	if err != nil {
		return err
	}
	data, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(f.path, data, 0o600); err != nil {
		return err
	}
	f.st = next
	return nil
}

func (f *fileAccount) OrderByID(id string) ([]byte, bool, error) { return f.st.OrderByID(id) }

func (f *fileAccount) OrderByClientID(cid string) ([]byte, bool, error) {
	return f.st.OrderByClientID(cid)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
