package session_test

import (
	"cockpit/session"
	"cockpit/session/supervise"
	"cockpit/session/vibeattach"
	"cockpit/tui"
)

// Every backend a screen is given implements tui.Backend; session itself imports no screen type.
var (
	_ tui.Backend = (*session.Backend)(nil)
	_ tui.Backend = (*supervise.Backend)(nil)
	_ tui.Backend = (*vibeattach.Backend)(nil)
)
