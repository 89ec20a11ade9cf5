package vibe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"

	"cockpit/live/jsonv"
)

// TailRecord is one line of a chain file as a follower saw it: its record (nil when the line
// is not a JSON object) and whether it is part of the verified chain.
type TailRecord struct {
	Index    int           // 0-based line number
	Seq      int64         // the line's seq, 0 when unreadable
	Record   *jsonv.Object // the record without the chain fields; nil when unreadable
	Verified bool          // false for every line at or after the first break
}

// ChainTail follows an append-only chain file (live/audit_chain.jsonl) written by another
// process: each Advance verifies only the complete lines appended since the last call,
// continuing from the last verified seq and hash, and keeps the newest Keep records. The first
// break is sticky: every line from it on is kept as unverified, never shown as good. A file
// that shrinks, is replaced, or any of whose read lines changes is a break too (the verified
// prefix can no longer be trusted): on any change of the file's size or time, the lines read
// so far are compared with what was read (a 64-bit sum of each), so an edit in place of the
// same length is caught at the next Advance, naming its line and seq.
type ChainTail struct {
	Path string
	Keep int // records kept for the screen (default 500)

	offset   int64  // bytes consumed: every complete line before it has been read
	lines    int    // lines consumed
	records  int64  // verified records
	lastHash string // the last verified record hash
	lastLine []byte // the last verified line, to notice it being rewritten
	lastAt   int64  // its offset
	info     fs.FileInfo
	brk      *MirrorBreak
	recent   []TailRecord
	sums     []uint64 // each line read so far, its FNV-1a sum (to notice an edit in place)
}

// Advance reads the lines appended since the last call. An unreadable file is an error
// (the tail is unchanged); a missing file is an empty chain until it has been seen.
func (t *ChainTail) Advance() error {
	if t.lastHash == "" {
		t.lastHash = GenesisChainHash
	}
	f, err := os.Open(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if t.offset > 0 {
			t.breakAt(t.lines, "removed", "the chain file was removed after "+fmt.Sprint(t.lines)+" lines")
			t.offset, t.lines, t.recent, t.info = 0, 0, nil, nil
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if at, seq, reason := t.rewritten(f, fi); reason != "" {
		if first := t.brk == nil; first {
			t.breakAt(at, "rewritten", reason)
			t.brk.Seq = seq
		} else {
			t.breakAt(at, "rewritten", reason)
		}
		t.offset, t.lines, t.recent, t.sums = 0, 0, nil, nil // re-read it all, as unverified
	}
	t.info = fi
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil { // EOF: a partial last line waits for its newline
			break
		}
		at := t.offset
		t.offset += int64(len(line))
		t.take(bytes.TrimSuffix(line, []byte("\n")), at)
	}
	return nil
}

// rewritten says why the file can no longer be the one whose prefix was verified, and the
// first line that is not what was read ("" when it still is).
func (t *ChainTail) rewritten(f *os.File, fi fs.FileInfo) (int, int64, string) {
	switch {
	case t.info == nil || t.offset == 0:
		return 0, 0, ""
	case !os.SameFile(t.info, fi):
		return t.lines, 0, "the chain file was replaced by another file"
	case fi.Size() < t.offset:
		return t.lines, 0, fmt.Sprintf("the chain file shrank from %d to %d bytes", t.offset, fi.Size())
	case fi.Size() == t.info.Size() && fi.ModTime().Equal(t.info.ModTime()):
		return 0, 0, "" // unchanged
	}
	return t.changedLine(f)
}

// changedLine compares the lines read so far with the file: the first that differs (by its
// sum) is named with its seq ("" when none does).
func (t *ChainTail) changedLine(f *os.File) (int, int64, string) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, t.offset), 64*1024)
	for i := range t.sums {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return i, 0, fmt.Sprintf("line %d of the chain file can no longer be read as it was", i+1)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if lineSum(line) != t.sums[i] {
			var seq int64
			if doc, err := jsonv.Parse(line, jsonv.Options{NonFinite: true}); err == nil {
				if o, ok := doc.(*jsonv.Object); ok {
					v, _ := jsonv.ToFloat(o.Value("seq"))
					seq = int64(v)
				}
			}
			return i, seq, fmt.Sprintf("line %d (seq %d) was edited in place after it was read", i+1, seq)
		}
	}
	return 0, 0, ""
}

// lineSum is a line's FNV-1a sum.
func lineSum(line []byte) uint64 {
	h := fnv.New64a()
	h.Write(line)
	return h.Sum64()
}

// take verifies (while the chain is intact) and keeps one complete line.
func (t *ChainTail) take(line []byte, at int64) {
	i := t.lines
	t.lines++
	t.sums = append(t.sums, lineSum(line))
	rec := TailRecord{Index: i}
	if t.brk == nil {
		o, seq, hash, b := checkLine(line, i, t.records, t.lastHash)
		if b == nil {
			t.records, t.lastHash = seq, hash
			t.lastLine, t.lastAt = append([]byte(nil), line...), at
			t.keep(TailRecord{Index: i, Seq: seq, Record: payloadOf(o), Verified: true})
			return
		}
		t.brk = b
	}
	if doc, err := jsonv.Parse(line, jsonv.Options{NonFinite: true}); err == nil {
		if o, ok := doc.(*jsonv.Object); ok {
			f, _ := jsonv.ToFloat(o.Value("seq"))
			rec.Seq, rec.Record = int64(f), payloadOf(o)
		}
	}
	t.keep(rec)
}

func (t *ChainTail) breakAt(i int, reason, detail string) {
	if t.brk == nil {
		t.brk = &MirrorBreak{Index: i, Reason: reason, Detail: detail}
	}
	t.lastLine = nil
}

func (t *ChainTail) keep(r TailRecord) {
	limit := t.Keep
	if limit <= 0 {
		limit = 500
	}
	t.recent = append(t.recent, r)
	if len(t.recent) > limit {
		t.recent = append(t.recent[:0:0], t.recent[len(t.recent)-limit:]...)
	}
}

// payloadOf is a chained record without its chain fields.
func payloadOf(o *jsonv.Object) *jsonv.Object {
	if o == nil {
		return nil
	}
	p := jsonv.Clone(o).(*jsonv.Object)
	for _, k := range []string{"seq", "prev_record_hash", "record_hash"} {
		p.Delete(k)
	}
	return p
}

// Report is the chain's state: OK with the records verified, or the first break.
func (t *ChainTail) Report() ChainReport {
	last := t.lastHash
	if last == "" {
		last = GenesisChainHash
	}
	return ChainReport{OK: t.brk == nil, Records: t.records, LastHash: last, Break: t.brk}
}

// Recent returns the newest kept records, oldest first.
func (t *ChainTail) Recent() []TailRecord { return append([]TailRecord(nil), t.recent...) }

// Lines is the number of complete lines read so far.
func (t *ChainTail) Lines() int { return t.lines }
