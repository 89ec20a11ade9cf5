// Package toolbroker is the broker adapter for tool-shaped brokers (an MCP server such as
// Robinhood's): Broker implements live.Broker by calling the server's tools through a Caller
// and reading their replies with a live.Profile. It sits next to package paper, the embedded
// paper broker; both import the domain package live, which imports neither.
package toolbroker
