// Package mcpbroker connects cockpit to a broker's MCP server (stdio command, streamable HTTP
// or the go-sdk in-memory transport), lists and classifies its tools through a live.Profile,
// and implements toolbroker.Caller over the client session so the server trades as a
// live.Broker behind the gate. Wrap decides what the agent sees: READ tools plain, WRITE and
// UNKNOWN tools gated, and none of those while the broker is halted (reference K5).
package mcpbroker
