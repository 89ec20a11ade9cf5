package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
)

// OriginDir holds, under the runtime root, one file per HALT sentinel the mirror wrote for
// another host: which host made it, and the attribution written with it. A sentinel whose
// attribution no longer matches (a local operator tripped it again) is this host's own.
const OriginDir = "fleet.mirror"

type origin struct {
	Host      string `json:"host"`
	By        string `json:"by"`
	TrippedAt string `json:"tripped_at"`
}

func (m *Mirror) originPath(scope live.Scope) string {
	return filepath.Join(m.Root.Dir(), OriginDir, HaltKey(scope))
}

// remember notes that the HALT of scope was just written for host.
func (m *Mirror) remember(scope live.Scope, host string) {
	a, _ := halt.ReadSentinel(m.Root, live.HaltSentinel, scope)
	if a == nil {
		return
	}
	data, err := json.Marshal(origin{Host: host, By: a.By, TrippedAt: a.TrippedAt})
	if err == nil {
		err = os.MkdirAll(filepath.Dir(m.originPath(scope)), 0o700)
	}
	if err == nil {
		err = atomicfile.WriteFile(m.originPath(scope), data, 0o600)
	}
	if err != nil { // the HALT then counts as this host's own: only a local resume clears it
		m.F.log.Warn("fleet halt origin not recorded", "scope", scope.String(), "err", err)
	}
}

// forget drops the origin of a HALT that was cleared.
func (m *Mirror) forget(scope live.Scope) { _ = os.Remove(m.originPath(scope)) }

// origin returns the host the HALT of scope was mirrored from; mirrored is false for a HALT
// this mirror did not write as it stands (a local operator's, cockpit's, a re-tripped one).
func (m *Mirror) origin(scope live.Scope) (host string, mirrored bool) {
	data, err := os.ReadFile(m.originPath(scope))
	if err != nil {
		return "", false
	}
	var o origin
	if json.Unmarshal(data, &o) != nil || o.Host == "" {
		return "", false
	}
	a, _ := halt.ReadSentinel(m.Root, live.HaltSentinel, scope)
	if a == nil || a.By != o.By || a.TrippedAt != o.TrippedAt {
		return "", false
	}
	return o.Host, true
}

// trip writes a remote halt into the local sentinel and remembers which host made it.
func (m *Mirror) trip(scope live.Scope, path string, v HaltValue) bool {
	m.expect(path, true)
	if _, err := halt.Trip(m.Root, live.HaltSentinel, scope, v.By+"@"+v.Host, v.Reason, m.now()); !halt.InForce(err) {
		m.F.log.Error("fleet halt not mirrored", "scope", scope.String(), "err", err)
		return false
	} else if err != nil {
		m.F.log.Warn("fleet halt mirrored but not known to be on disk", "scope", scope.String(), "err", err)
	}
	m.remember(scope, v.Host)
	return true
}

// refuseResume says why a remote resume may not clear this host's HALT ("" when it may): it
// must be signed by a host of the fleet, and the HALT must be one this mirror wrote for that
// same host. A HALT a local operator (or cockpit itself) made is cleared only on this host.
func (m *Mirror) refuseResume(scope live.Scope, v HaltValue, verr error) string {
	if verr != nil {
		return verr.Error()
	}
	origin, mirrored := m.origin(scope)
	switch {
	case !mirrored:
		by := "a local operator"
		if a, _ := halt.ReadSentinel(m.Root, live.HaltSentinel, scope); a != nil && a.By != "" {
			by = fmt.Sprintf("%q on this host", a.By)
		}
		return "the HALT here was made by " + by + ": only this host resumes it"
	case origin != v.Host:
		return fmt.Sprintf("the HALT here was made by host %q: only its resume clears it", origin)
	}
	return ""
}
