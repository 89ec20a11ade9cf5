package halt

import (
	"os"
	"path/filepath"

	"cockpit/live"
)

// UnrecognisedSentinels lists HALT and REDUCE_ONLY files the cockpit does not act on: those in
// a directory under live/ whose name is not a normalised broker key (live/PAPER/HALT for the
// broker paper, say). Each is a warning for the operator: someone meant to stop something.
func UnrecognisedSentinels(root live.Root) []string {
	_, others := BrokerDirs(root)
	var out []string
	for _, name := range others {
		for _, s := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			p := filepath.Join(root.LiveDir(), name, string(s))
			if sentinelSet(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// BrokerDirs splits the directories under live/ into broker keys (valid, normalised, sorted)
// and the others, whose sentinels halt nothing. "runtime" is neither: it is the reference's
// own state directory.
func BrokerDirs(root live.Root) (brokers, others []string) {
	entries, err := os.ReadDir(root.LiveDir())
	if err != nil {
		return nil, nil
	}
	for _, e := range entries {
		switch key, err := live.NormalizeBroker(e.Name()); {
		case !e.IsDir() || e.Name() == "runtime":
		case err == nil && key == e.Name():
			brokers = append(brokers, key)
		default:
			others = append(others, e.Name())
		}
	}
	return brokers, others
}
