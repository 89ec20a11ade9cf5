package session

import (
	"io"
	"time"

	"cockpit/live"
)

// testOptions opens a paper session with no agent (reviews answered on the screen) on home,
// with the real clock and an empty environment.
func testOptions(home string) Options {
	return Options{Env: Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"}
}
