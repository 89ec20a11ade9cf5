package equitymark

import (
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

var day1 = time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC)

func mark(t *testing.T, f *File, at time.Time, equity string) live.EquityMark {
	t.Helper()
	m, err := f.MarkEquity(at, money.MustParse(equity))
	if err != nil {
		t.Fatalf("MarkEquity(%s): %v", equity, err)
	}
	return m
}

// TestFileMarkSurvivesARestart: a new File (a restarted process) reads the day's start and
// peak back from disk; the next UTC day starts again.
func TestFileMarkSurvivesARestart(t *testing.T) {
	root := live.Root(t.TempDir())
	f := &File{Root: root, Broker: "alpaca"}
	mark(t, f, day1, "1000")
	mark(t, f, day1.Add(time.Minute), "1100")
	mark(t, f, day1.Add(2*time.Minute), "950")
	again := &File{Root: root, Broker: "alpaca"}
	m := mark(t, again, day1.Add(time.Hour), "940")
	if got, want := m.Start.String()+"/"+m.Peak.String(), "1000/1100"; got != want {
		t.Fatalf("after a restart start/peak = %s, want %s", got, want)
	}
	if st, err := os.Stat(Path(root, "alpaca")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mark file: %v %v, want mode 0600", st, err)
	}
	m = mark(t, again, day1.Add(24*time.Hour), "930")
	if got, want := m.Day+" "+m.Start.String(), "2026-12-04 930"; got != want {
		t.Fatalf("next day = %s, want %s", got, want)
	}
}

// TestFileMarkCannotBeLoweredWithinAProcess: deleting or rewriting the file mid-day does not
// reset the baseline this process saw (the day's loss is not erased by a file).
func TestFileMarkCannotBeLoweredWithinAProcess(t *testing.T) {
	root := live.Root(t.TempDir())
	f := &File{Root: root, Broker: "alpaca"}
	mark(t, f, day1, "1000")
	os.Remove(Path(root, "alpaca"))
	if m := mark(t, f, day1.Add(time.Minute), "900"); m.Start.String() != "1000" {
		t.Fatalf("after deleting the file start = %s, want 1000", m.Start)
	}
	os.WriteFile(Path(root, "alpaca"), []byte(`{"day": "2026-12-03", "start_equity": 500, "peak_equity": 500}`), 0o600)
	if m := mark(t, f, day1.Add(2*time.Minute), "900"); m.Start.String() != "1000" || m.Peak.String() != "1000" {
		t.Fatalf("after lowering the file start/peak = %s/%s, want 1000/1000", m.Start, m.Peak)
	}
	if m, _, err := Read(root, "alpaca"); err != nil || m.Start.String() != "1000" {
		t.Fatalf("file after the mark: %+v %v, want it written back", m, err)
	}
}

// TestFileMarkUnreadableFailsClosed: a file that is not a mark is an error naming it (no
// silent new baseline at the current equity), for a process that has no mark of its own yet.
func TestFileMarkUnreadableFailsClosed(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":       `not json`,
		"string number": `{"day": "2026-12-03", "start_equity": "NaN", "peak_equity": 1}`,
		"negative":      `{"day": "2026-12-03", "start_equity": -5, "peak_equity": 1}`,
		"bad day":       `{"day": "yesterday", "start_equity": 5, "peak_equity": 5}`,
		"missing peak":  `{"day": "2026-12-03", "start_equity": 5}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := live.Root(t.TempDir())
			os.MkdirAll(root.BrokerDir("alpaca"), 0o700)
			os.WriteFile(Path(root, "alpaca"), []byte(content), 0o600)
			_, err := (&File{Root: root, Broker: "alpaca"}).MarkEquity(day1, money.MustParse("1000"))
			if err == nil || !strings.Contains(err.Error(), FileName) {
				t.Fatalf("err = %v, want an error naming %s", err, FileName)
			}
		})
	}
}
