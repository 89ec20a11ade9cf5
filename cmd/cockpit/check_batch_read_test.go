package main

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

type readLine struct {
	line    string
	tooLong bool
}

// modelLines is what `check --batch` reads from in, by its definition: lines split at '\n',
// trimmed of spaces; a line longer than limit is too long, the last one (no newline) when it
// is longer than limit+1.
func modelLines(in string, limit int) []readLine {
	var out []readLine
	parts := strings.Split(in, "\n")
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case last && p == "":
		case (!last && len(p) > limit) || (last && len(p) > limit+1):
			out = append(out, readLine{"", true})
		default:
			out = append(out, readLine{strings.TrimSpace(p), false})
		}
	}
	return out
}

func readAll(t *testing.T, r io.Reader, limit int) []readLine {
	t.Helper()
	br := newBatchReader(r, limit)
	var out []readLine
	for {
		line, long, ok := br.next()
		if !ok {
			break
		}
		out = append(out, readLine{line, long})
	}
	if br.err != io.EOF {
		t.Fatalf("read error %v", br.err)
	}
	return out
}

// TestBatchReaderSplitsAsDefined: random inputs with short and over-long lines, CRLF, blank
// lines and no final newline, read whole, a byte at a time and in halves, give the lines the
// definition gives.
func TestBatchReaderSplitsAsDefined(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		limit := 1 + rng.IntN(40)
		if i%50 == 0 {
			limit = batchBlock + rng.IntN(3) // lines around a block's size
		}
		var sb strings.Builder
		for range rng.IntN(30) {
			n := rng.IntN(2*limit + 3)
			if rng.IntN(4) == 0 {
				n = limit + rng.IntN(3)
			}
			sb.WriteString(strings.Repeat(string("ab \r"[rng.IntN(4)]), n))
			if rng.IntN(8) != 0 {
				sb.WriteByte('\n')
			}
		}
		in := sb.String()
		want := modelLines(in, limit)
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(in),
			"bytes": iotest.OneByteReader(strings.NewReader(in)), "halves": iotest.HalfReader(strings.NewReader(in))} {
			if name == "bytes" && len(in) > 1<<16 {
				continue
			}
			got := readAll(t, r, limit)
			if len(got) != len(want) {
				t.Fatalf("%s, limit %d: %d lines, want %d", name, limit, len(got), len(want))
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("%s, limit %d: line %d = %.40q %v, want %.40q %v", name, limit, j+1, got[j].line, got[j].tooLong, want[j].line, want[j].tooLong)
				}
			}
		}
	}
}

// spyReader records the memory each Read was handed, in order.
type spyReader struct {
	r      io.Reader
	writes [][2]uintptr
}

func (s *spyReader) Read(p []byte) (int, error) {
	if len(p) > 0 {
		s.writes = append(s.writes, [2]uintptr{uintptr(unsafe.Pointer(&p[0])), uintptr(unsafe.Pointer(&p[0])) + uintptr(len(p))})
	}
	return s.r.Read(p)
}

// TestBatchReaderNeverWritesUnderALine: the lines alias the reader's blocks (unsafe.String);
// no read after a line was handed out is given memory under that line, so a line never
// changes (checked against a copy taken when it was handed out, at the end).
func TestBatchReaderNeverWritesUnderALine(t *testing.T) {
	var sb strings.Builder
	for i := range 40000 {
		sb.WriteString(strings.Repeat("x", i%97))
		sb.WriteString("\n")
	}
	for _, r := range []io.Reader{strings.NewReader(sb.String()), iotest.HalfReader(strings.NewReader(sb.String()))} {
		spy := &spyReader{r: r}
		br := newBatchReader(spy, 1000)
		type handed struct {
			line   string
			copy   string
			reads  int // reads made before it was handed out
			lo, hi uintptr
		}
		var lines []handed
		for {
			line, _, ok := br.next()
			if !ok {
				break
			}
			h := handed{line: line, copy: strings.Clone(line), reads: len(spy.writes)}
			if line != "" {
				h.lo = uintptr(unsafe.Pointer(unsafe.StringData(line)))
				h.hi = h.lo + uintptr(len(line))
			}
			lines = append(lines, h)
		}
		if !errors.Is(br.err, io.EOF) || len(lines) != 40000 {
			t.Fatalf("%d lines, err %v", len(lines), br.err)
		}
		for _, h := range lines {
			for _, w := range spy.writes[h.reads:] {
				if h.lo < w[1] && w[0] < h.hi {
					t.Fatalf("a read after line %q was handed out wrote under it", h.copy)
				}
			}
			if h.line != h.copy {
				t.Fatalf("line changed: %q, was %q", h.line, h.copy)
			}
		}
	}
}
