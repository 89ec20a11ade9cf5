package halt

import (
	"cockpit/live"
	"os"
	"path/filepath"
)

// UnrecognisedSentinels lists HALT and REDUCE_ONLY files the cockpit does not act on: those in
// a directory under live/ whose name is not a normalised broker key (live/PAPER/HALT for the
// broker paper, say). Each is a warning for the operator: someone meant to stop something.
func UnrecognisedSentinels(root live.Root) []string {
	entries, err := os.ReadDir(root.LiveDir())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if key, err := live.NormalizeBroker(e.Name()); err == nil && key == e.Name() {
			continue
		}
		for _, s := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			p := filepath.Join(root.LiveDir(), e.Name(), string(s))
			if sentinelSet(p) {
				out = append(out, p)
			}
		}
	}
	return out
}
