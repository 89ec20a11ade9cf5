package tools

import (
	"context"
	"fmt"
	"net/http"
	"testing"
)

// TestWebReaderCachedSnapshot: a page the reader says is a cached snapshot carries the
// reference's `cached: true`; a fresh page carries no cached key at all.
func TestWebReaderCachedSnapshot(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/stale", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Title: q\n\nWarning: This is a cached snapshot of the original page, consider retry with caching opt-out.\n\nbody")
	})
	mux.HandleFunc("/fresh", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Title: q\n\nbody")
	})
	w, _ := webFixture(t, mux, "strict")
	tests := []struct {
		path string
		want any
		has  bool
	}{
		{"/stale", true, true},
		{"/fresh", nil, false},
	}
	for _, tt := range tests {
		out, err := w.Read(context.Background(), "http://good.test"+tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		got, has := out.Get("cached")
		if has != tt.has || got != tt.want {
			t.Errorf("%s: cached = %v (present %v), want %v (present %v)", tt.path, got, has, tt.want, tt.has)
		}
	}
}
