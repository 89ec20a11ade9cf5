package main

import (
	"fmt"
	"io"

	"cockpit/live/termsafe"
)

// cell shows one field of outside text (a symbol, an order id, a peer's or a file's words) in
// a table or a line: its control characters and escape sequences are escaped, line breaks
// and tabs too, so it stays in its cell and never drives the terminal (termsafe.Text).
func cell(s string) string { return termsafe.Text(s) }

// printLine prints one line of human output (a line feed is added). Whatever the line quotes
// from an agent, a client, a broker, a fleet peer or a file is escaped with it: the format
// has no control characters of its own, so escaping the whole line escapes exactly those.
func printLine(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, termsafe.Text(fmt.Sprintf(format, args...)))
}
