// Package vibeattach is the screen's backend over a Vibe-Trading runtime root (`cockpit attach
// --vibe DIR`): read-only over its live/ files — the broker's mandate, day counter and last
// reconciled positions, the HALT sentinels and the hash-chained audit_chain.jsonl, verified as
// it grows. Its only actions are halt and resume, by the sentinel files Vibe-Trading's gate
// checks; it has no command queue, so nothing else can be done on that root from here.
package vibeattach

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cockpit/live"
)

// Detect checks that dir is a Vibe-Trading runtime root and picks its broker: the one asked
// for (its live/<broker>/ directory must exist), else the only live/<broker>/ holding a
// mandate.json or a trade_counter.json. The error names what is missing.
func Detect(dir, broker string) (live.Root, string, error) {
	root, err := live.NewRoot(dir)
	if err != nil {
		return "", "", err
	}
	if fi, err := os.Stat(root.Dir()); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("%s is not a directory", root.Dir())
	}
	if fi, err := os.Stat(root.LiveDir()); err != nil || !fi.IsDir() {
		hint := ""
		if filepath.Base(root.Dir()) == "live" {
			hint = " (pass the Vibe-Trading root, e.g. ~/.vibe-trading, not its live/ directory)"
		}
		return "", "", fmt.Errorf("%s is not a Vibe-Trading root: %s is missing%s", root.Dir(), root.LiveDir(), hint)
	}
	found := Brokers(root)
	if broker != "" {
		key, err := live.NormalizeBroker(broker)
		if err != nil {
			return "", "", err
		}
		if fi, err := os.Stat(root.BrokerDir(key)); err != nil || !fi.IsDir() {
			return "", "", fmt.Errorf("%s is missing (brokers on this root: %s)", root.BrokerDir(key), listOr(found))
		}
		return root, key, nil
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("%s is not a Vibe-Trading root: no %s holds a mandate.json or a trade_counter.json",
			root.Dir(), filepath.Join(root.LiveDir(), "<broker>")+string(filepath.Separator))
	case 1:
		return root, found[0], nil
	}
	return "", "", fmt.Errorf("%s has several brokers (%s): pick one with --broker", root.Dir(), strings.Join(found, ", "))
}

// Brokers lists the broker keys under live/ whose directory holds a mandate or a day counter.
func Brokers(root live.Root) []string {
	entries, err := os.ReadDir(root.LiveDir())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		key, err := live.NormalizeBroker(e.Name())
		if !e.IsDir() || err != nil || key != e.Name() || key == "runtime" {
			continue
		}
		for _, p := range []string{root.MandatePath(key), root.CounterPath(key)} {
			if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
				out = append(out, key)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func listOr(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}
