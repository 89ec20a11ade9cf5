package readmodel_test

import (
	"io"
	"time"

	"cockpit/live"
	"cockpit/session"
)

// testOptions opens a session on home with no agent (the paper broker and its mandate).
func testOptions(home string) session.Options {
	return session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"}
}
