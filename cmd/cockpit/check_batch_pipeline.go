package main

import (
	"fmt"
	"io"
	goruntime "runtime"

	"cockpit/live"
	"cockpit/live/termsafe"
)

// batchItem is one non-blank input line of `check --batch` (or one over the size limit).
type batchItem struct {
	n       int // its line number
	line    string
	tooLong bool
}

// batchChunk is how many lines one worker evaluates at a time.
const batchChunk = 256

// batchPipeline evaluates chunks of lines on every CPU and writes their verdicts in input
// order: each chunk's result waits in order behind the ones before it, so the output is the
// same bytes as one line after another.
type batchPipeline struct {
	order chan chan chunkResult // one result slot per chunk, in input order
	sem   chan struct{}         // bounds the chunks being evaluated
	done  chan bool             // the writer's answer: was any verdict not ALLOW
}

type chunkResult struct {
	out      []byte
	notAllow bool
}

func newBatchPipeline(w io.Writer) *batchPipeline {
	workers := max(1, goruntime.GOMAXPROCS(0))
	p := &batchPipeline{order: make(chan chan chunkResult, 2*workers), sem: make(chan struct{}, workers), done: make(chan bool, 1)}
	go func() {
		notAllow := false
		for slot := range p.order {
			r := <-slot
			w.Write(r.out)
			notAllow = notAllow || r.notAllow
		}
		p.done <- notAllow
	}()
	return p
}

// submit queues a chunk; it blocks while the writer is far behind (bounded memory).
func (p *batchPipeline) submit(items []batchItem) {
	slot := make(chan chunkResult, 1)
	p.order <- slot
	p.sem <- struct{}{}
	go func() {
		defer func() { <-p.sem }()
		slot <- evaluateChunk(items)
	}()
}

// wait writes every submitted chunk and reports whether any verdict was not ALLOW.
func (p *batchPipeline) wait() bool {
	close(p.order)
	return <-p.done
}

func evaluateChunk(items []batchItem) chunkResult {
	r := chunkResult{out: make([]byte, 0, 192*len(items))} // about one verdict's size per line
	c := batchCaches.Get().(*batchCache)
	defer batchCaches.Put(c)
	for _, it := range items {
		var res live.WhatIfResult
		if it.tooLong {
			res = badLine("", it.n, fmt.Errorf("line %d is longer than the %d-byte limit", it.n, batchLineLimit))
		} else if fast, ok := fastBatchLine(c, it.line, it.n); ok {
			res = fast
		} else {
			res = batchLine(it.line, it.n)
		}
		r.out = append(res.AppendJSON(r.out), '\n')
		r.notAllow = r.notAllow || res.Verdict != live.Allow
	}
	r.out = termsafe.JSON(r.out) // an id or a symbol from the file: what a terminal acts on as JSON escapes
	return r
}
