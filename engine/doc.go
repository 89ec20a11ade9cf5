// Package engine is the agent runtime: the tool registry and the one chokepoint every agent
// tool call passes, the layered policy, breach review, the injection scanner and tool safety,
// and the typed event stream the TUI renders. It depends on live, never the reverse.
package engine
