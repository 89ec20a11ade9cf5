package mcpserve_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cockpit/engine/mcpserve"
)

// sseBlock is one blank-line-terminated block of an SSE body: its fields, data joined by \n.
type sseBlock struct {
	id, event, data, retry string
	hasData                bool
}

func parseSSE(t *testing.T, body string) []sseBlock {
	t.Helper()
	var out []sseBlock
	for _, raw := range strings.Split(body, "\n\n") {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		var b sseBlock
		for _, line := range strings.Split(raw, "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				b.id = v
			case "event":
				b.event = v
			case "retry":
				b.retry = v
			case "data":
				if b.hasData {
					b.data += "\n"
				}
				b.data += v
				b.hasData = true
			}
		}
		out = append(out, b)
	}
	return out
}

// dispatched are the blocks an SSE client hands on as events: those with a data field.
func dispatched(bs []sseBlock) []sseBlock {
	var out []sseBlock
	for _, b := range bs {
		if b.hasData {
			out = append(out, b)
		}
	}
	return out
}

// summary names each block's fields briefly (a failing test's message).
func summary(bs []sseBlock) string {
	var parts []string
	for _, b := range bs {
		d := b.data
		if len(d) > 40 {
			d = d[:40] + "…"
		}
		parts = append(parts, fmt.Sprintf("{id=%q retry=%q data(%v)=%q}", b.id, b.retry, b.hasData, d))
	}
	return strings.Join(parts, " ")
}

func sseRetry(bs []sseBlock) string {
	for _, b := range bs {
		if b.retry != "" {
			return b.retry
		}
	}
	return ""
}

func post(t *testing.T, ts *httptest.Server, tok, session, version, body string) (*http.Response, []sseBlock) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, []sseBlock) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: status %d: %s", req.Method, resp.StatusCode, raw)
	}
	return resp, parseSSE(t, string(raw))
}

// open initializes a session at a protocol version and sends notifications/initialized.
func open(t *testing.T, ts *httptest.Server, tok, version string) string {
	t.Helper()
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"sse-test","version":"1"}}}`, version)
	resp, _ := post(t, ts, tok, "", "", init)
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	post(t, ts, tok, id, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

const listTools = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`

// TestSSEPrimingAndRetry: every SSE response announces a retry delay; a session on protocol
// 2025-11-25 (which added priming, SEP-1699) gets a priming event (an id, empty data) first on
// each POST stream — also when a request's header names an older version, as the conformance
// suite's raw requests do; an older session gets no priming event (its clients cannot take an
// event with empty data).
func TestSSEPrimingAndRetry(t *testing.T) {
	ts, tok, _ := httpServer(t)
	tests := []struct {
		name        string
		session     string // protocol version the session negotiated
		header      string // the request's Mcp-Protocol-Version
		wantPriming bool
	}{
		{"2025-11-25 session", "2025-11-25", "2025-11-25", true},
		{"2025-11-25 session, older header", "2025-11-25", "2025-03-26", true},
		{"2025-11-25 session, no header", "2025-11-25", "", true},
		{"2025-06-18 session", "2025-06-18", "2025-06-18", false},
		{"2025-03-26 session", "2025-03-26", "2025-03-26", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := open(t, ts, tok, tc.session)
			_, blocks := post(t, ts, tok, id, tc.header, listTools)
			if got, want := sseRetry(blocks), fmt.Sprint(mcpserve.SSERetry.Milliseconds()); got != want {
				t.Errorf("retry = %q, want %q; stream: %s", got, want, summary(blocks))
			}
			ev := dispatched(blocks)
			if len(ev) == 0 {
				t.Fatalf("no events; stream: %s", summary(blocks))
			}
			primed := ev[0].id != "" && strings.TrimSpace(ev[0].data) == ""
			if primed != tc.wantPriming {
				t.Errorf("primed = %v, want %v; stream: %s", primed, tc.wantPriming, summary(blocks))
			}
			last := ev[len(ev)-1]
			if !strings.Contains(last.data, `"id":7`) || !strings.Contains(last.data, "place_order") {
				t.Errorf("last event %s, want the tools/list result", summary([]sseBlock{last}))
			}
		})
	}
}

// TestSSEResumeFromPriming: the priming event's id is a real resumption point: a GET with it
// as Last-Event-ID replays the response that followed it.
func TestSSEResumeFromPriming(t *testing.T) {
	ts, tok, _ := httpServer(t)
	id := open(t, ts, tok, "2025-11-25")
	_, blocks := post(t, ts, tok, id, "2025-11-25", listTools)
	ev := dispatched(blocks)
	if len(ev) < 2 || ev[0].id == "" {
		t.Fatalf("stream %s, want a priming event and the result", summary(blocks))
	}
	req, err := http.NewRequest(http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", ev[0].id)
	_, replay := do(t, req)
	got := dispatched(replay)
	if len(got) != 1 || !strings.Contains(got[0].data, `"id":7`) {
		t.Fatalf("replay after %s = %s, want the tools/list result once", ev[0].id, summary(got))
	}
	if sseRetry(replay) == "" {
		t.Errorf("replay %s: no retry field", summary(replay))
	}
}
