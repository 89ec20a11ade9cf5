package main

import (
	"bytes"
	"io"
	"strings"
	"unsafe"
)

// batchBlock is how much of a --batch input one read asks for.
const batchBlock = 256 << 10

// batchReader splits the input of `check --batch` into lines. It reads large blocks and
// hands out each line as a string over its block's memory: no copy and no allocation per
// line.
//
// The strings alias buf through unsafe.String. That is sound because the bytes a string
// covers are never written again: reads only ever write buf[end:] and end only grows; a
// block that fills up is left as it is (its lines keep it alive) and the unread tail is
// copied into a new block; an io.Reader must not retain the slice it was given. So the
// memory under every line is immutable for the line's lifetime (TestBatchReaderNeverWrites
// UnderALine).
type batchReader struct {
	r     io.Reader
	limit int    // the longest line, without its newline
	buf   []byte // the current block: buf[pos:end] is read and not yet handed out
	pos   int
	scan  int   // buf[pos:scan] holds no newline
	end   int   // buf[end:] is free
	long  bool  // the line at pos went past the limit: its bytes are being dropped
	err   error // what ended the reads (io.EOF at the input's end)
}

func newBatchReader(r io.Reader, limit int) *batchReader {
	return &batchReader{r: r, limit: limit}
}

// next returns the next line without its newline and trimmed of spaces, and whether it went
// past the limit (then the line is ""): a line with a newline may hold limit bytes; the last
// line, without one, limit+1 (as one bufio read of the line and its newline gave before).
// ok is false once the input has ended; err then says why.
func (b *batchReader) next() (line string, tooLong, ok bool) {
	for {
		if i := bytes.IndexByte(b.buf[b.scan:b.end], '\n'); i >= 0 {
			nl := b.scan + i
			long := b.long || nl-b.pos > b.limit
			if !long {
				line = b.text(b.pos, nl)
			}
			b.pos, b.scan, b.long = nl+1, nl+1, false
			return line, long, true
		}
		b.scan = b.end
		if b.end-b.pos > b.limit+1 { // no newline within reach: the line is too long, drop it
			b.long = true
			b.pos = b.end
		}
		if b.err != nil {
			if b.err != io.EOF || (b.pos == b.end && !b.long) {
				return "", false, false
			}
			long := b.long
			if !long {
				line = b.text(b.pos, b.end)
			}
			b.pos, b.scan, b.long = b.end, b.end, false
			return line, long, true
		}
		b.fill()
	}
}

// text is buf[from:to] as a string over the same memory (see batchReader), trimmed.
func (b *batchReader) text(from, to int) string {
	if from == to {
		return ""
	}
	return strings.TrimSpace(unsafe.String(&b.buf[from], to-from))
}

// fill reads more input after buf[pos:end], in a new block when this one has little room.
func (b *batchReader) fill() {
	if len(b.buf)-b.end < batchBlock/16 {
		rest := b.buf[b.pos:b.end]
		nb := make([]byte, max(batchBlock, 2*len(rest)))
		b.end = copy(nb, rest)
		b.scan -= b.pos
		b.buf, b.pos = nb, 0
	}
	for range 100 { // as bufio gives up on a reader that keeps returning nothing
		n, err := b.r.Read(b.buf[b.end:])
		b.end += n
		if err != nil {
			b.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	b.err = io.ErrNoProgress
}
