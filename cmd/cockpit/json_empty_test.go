package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonArray decodes a list verb's --json output: one JSON array.
func jsonArray(t *testing.T, what, out string) []map[string]any {
	t.Helper()
	var v []map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: not one JSON array: %v\n%s", what, err, out)
	}
	return v
}

// TestEveryJSONOutputIsValidJSON is issue 28 §2's fifth repro: `orders --json` and
// `positions --json` (and `approvals list --json`, `audit list --json` with nothing to list)
// printed nothing, which is not JSON. Every --json output is one JSON document, also when
// empty; a list is an array with one element per line.
func TestEveryJSONOutputIsValidJSON(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	lists := [][]string{
		{"positions", "--json"},
		{"orders", "--json"},
		{"approvals", "list", "--json"},
		{"audit", "list", "--json", "--type", "no_such_type"},
	}
	for _, args := range lists {
		out, errOut, code := run(t, home, "", args...)
		if code != exitOK {
			t.Errorf("%v: exit %d %s", args, code, errOut)
			continue
		}
		if got := jsonArray(t, strings.Join(args, " "), out); len(got) != 0 {
			t.Errorf("%v: %d elements on a fresh root, want none", args, len(got))
		}
	}
	for _, args := range [][]string{{"status", "--json"}, {"mandate", "show", "--json"}} {
		out, _, code := run(t, home, "", args...)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil {
			t.Errorf("%v: exit %d, %v: %q", args, code, err, out)
		}
	}
	// Not empty: still one array, one element per line.
	savePaper(t, home)
	out, _, _ := run(t, home, "", "audit", "list", "--json")
	if got := jsonArray(t, "audit list --json", out); len(got) == 0 {
		t.Fatalf("audit list --json after init: no events:\n%s", out)
	} else if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != len(got)+2 {
		t.Errorf("audit list --json: %d lines for %d events, want one per event between [ and ]", len(lines), len(got))
	}
	for _, verb := range []string{"positions", "orders"} {
		out, _, _ := run(t, home, "", verb, "--json")
		if got := jsonArray(t, verb+" --json", out); len(got) != 1 {
			t.Errorf("%s --json: %d elements, want 1:\n%s", verb, len(got), out)
		}
	}
}
