// Package session wires one running cockpit: the runtime root (config, store, log, audit
// trail), the broker account it owns, the gate, the engine and its event bus, the halt
// watcher and the agent. The command line, the screen and (next) an MCP server or a
// supervising process all run a cockpit through it:
//
//	s, err := session.Open(session.Options{Env: env, Root: root, Agent: "none"})
//	defer s.Close()
//	go s.Run(ctx)                 // the loops, until ctx ends
//	s.Backend()                   // the screen's typed queries and operator actions (tui.Backend)
//	s.Bus().Subscribe(ctx, 1024)  // engine events
//	s.Quit("why")                 // on_quit: halt and flatten, or leave resting orders
//
// Start-up notes go to Env.Stderr before anything runs; nothing is written to the terminal
// afterwards (logs go to cockpit.log).
package session
