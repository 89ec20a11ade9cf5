package vibe

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/livetest"
)

// appendN writes n records through the Vibe-format mirror writer.
func appendN(t *testing.T, m *Mirror, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		p := jsonv.ObjectOf("audit_id", fmt.Sprintf("la_%d", i), "kind", "order_placed", "outcome", "accepted", "server", "robinhood")
		if err := m.AppendPayload(p); err != nil {
			t.Fatal(err)
		}
	}
}

func verifiedFlags(tl *ChainTail) string {
	var b strings.Builder
	for _, r := range tl.Recent() {
		b.WriteString(map[bool]string{true: "v", false: "u"}[r.Verified])
	}
	return b.String()
}

// TestChainTailIncremental: appended lines are verified from where the last call stopped; a
// partial last line waits for its newline.
func TestChainTailIncremental(t *testing.T) {
	m := &Mirror{Root: livetest.Root(t)}
	tl := &ChainTail{Path: m.ChainPath()}
	if err := tl.Advance(); err != nil || !tl.Report().OK || tl.Lines() != 0 {
		t.Fatalf("missing file: err %v report %+v lines %d, want an intact empty chain", err, tl.Report(), tl.Lines())
	}
	appendN(t, m, 1, 3)
	if err := tl.Advance(); err != nil {
		t.Fatal(err)
	}
	if rep := tl.Report(); !rep.OK || rep.Records != 3 {
		t.Fatalf("after 3: %+v, want OK with 3 records", rep)
	}
	appendN(t, m, 4, 2)
	data, _ := os.ReadFile(m.ChainPath())
	f, _ := os.OpenFile(m.ChainPath(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"audit_id": "la_6", "kind"`) // a writer mid-line
	f.Close()
	if err := tl.Advance(); err != nil {
		t.Fatal(err)
	}
	rep := tl.Report()
	if !rep.OK || rep.Records != 5 || tl.Lines() != 5 {
		t.Fatalf("after 5 and a partial line: %+v lines %d, want OK, 5 records, 5 lines", rep, tl.Lines())
	}
	if got, want := rep.LastHash, VerifyChain(writeTemp(t, data)).LastHash; got != want {
		t.Errorf("last hash %s, want the full verification's %s", got, want)
	}
	if got, want := verifiedFlags(tl), "vvvvv"; got != want {
		t.Errorf("verified flags %q, want %q", got, want)
	}
}

func writeTemp(t *testing.T, data []byte) string {
	p := t.TempDir() + "/chain.jsonl"
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestChainTailBreaks: an edited line breaks the chain there and every later line is
// unverified, including lines appended afterwards; a shrunk or replaced file is a break.
func TestChainTailBreaks(t *testing.T) {
	t.Run("edited line", func(t *testing.T) {
		m := &Mirror{Root: livetest.Root(t)}
		appendN(t, m, 1, 4)
		data, _ := os.ReadFile(m.ChainPath())
		edited := strings.Replace(string(data), `"audit_id": "la_2", "kind": "order_placed"`, `"audit_id": "la_2", "kind": "order_cancelled"`, 1)
		if edited == string(data) {
			t.Fatal("fixture: nothing edited")
		}
		os.WriteFile(m.ChainPath(), []byte(edited), 0o600)
		tl := &ChainTail{Path: m.ChainPath()}
		if err := tl.Advance(); err != nil {
			t.Fatal(err)
		}
		rep := tl.Report()
		if rep.OK || rep.Records != 1 || rep.Break.Index != 1 || rep.Break.Reason != "record_hash_mismatch" {
			t.Fatalf("report %+v break %+v, want a record_hash_mismatch at index 1 after 1 record", rep, rep.Break)
		}
		f, _ := os.OpenFile(m.ChainPath(), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("{\"audit_id\": \"la_9\", \"seq\": 5}\n")
		f.Close()
		tl.Advance()
		if got, want := verifiedFlags(tl), "vuuuu"; got != want {
			t.Errorf("verified flags %q, want %q", got, want)
		}
	})
	for _, tc := range []struct {
		name   string
		change func(path string)
	}{
		{"truncated", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o600)
		}},
		{"replaced", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p+".new", data, 0o600)
			os.Rename(p+".new", p)
		}},
		{"older line edited in place, same length", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"la_1"`, `"la_Y"`, 1)), 0o600)
		}},
		{"older line edited in place and a line appended", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"la_2"`, `"la_Z"`, 1)+"{\"audit_id\": \"la_9\", \"seq\": 4}\n"), 0o600)
		}},
		{"last line rewritten", func(p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"la_3"`, `"la_X"`, 1)), 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Mirror{Root: livetest.Root(t)}
			appendN(t, m, 1, 3)
			tl := &ChainTail{Path: m.ChainPath()}
			tl.Advance()
			if !tl.Report().OK {
				t.Fatalf("fixture chain not OK: %+v", tl.Report())
			}
			tc.change(m.ChainPath())
			if err := tl.Advance(); err != nil {
				t.Fatal(err)
			}
			rep := tl.Report()
			if rep.OK || rep.Break.Reason != "rewritten" {
				t.Fatalf("report %+v, want a rewritten break", rep)
			}
			if strings.Contains(tc.name, "in place") && (!strings.Contains(rep.Break.Detail, "(seq ") || rep.Break.Seq == 0) {
				t.Errorf("break %+v, want it to name the edited line and its seq", rep.Break)
			}
			for _, r := range tl.Recent() {
				if r.Verified {
					t.Errorf("record %d shown verified after the file was rewritten", r.Index)
				}
			}
		})
	}
}

// TestAppendPayloadsMatchesOneByOne: a batch append writes the same chain as appending each
// record alone.
func TestAppendPayloadsMatchesOneByOne(t *testing.T) {
	one, batch := &Mirror{Root: livetest.Root(t)}, &Mirror{Root: livetest.Root(t)}
	appendN(t, one, 1, 3)
	var ps []*jsonv.Object
	for i := 1; i <= 3; i++ {
		ps = append(ps, jsonv.ObjectOf("audit_id", fmt.Sprintf("la_%d", i), "kind", "order_placed", "outcome", "accepted", "server", "robinhood"))
	}
	if err := batch.AppendPayloads(ps[:1]); err != nil {
		t.Fatal(err)
	}
	if err := batch.AppendPayloads(ps[1:]); err != nil {
		t.Fatal(err)
	}
	batch.AppendPayloads(nil)
	for _, name := range []string{"audit_chain.jsonl", "audit.jsonl"} {
		a, _ := os.ReadFile(one.Root.LiveDir() + "/" + name)
		b, _ := os.ReadFile(batch.Root.LiveDir() + "/" + name)
		if string(a) != string(b) {
			t.Errorf("%s: batch\n%s\none by one\n%s", name, b, a)
		}
	}
}
