package llm

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
)

// TestProviderEchoOfTheKeyIsRedacted is issue 10 item 8: a provider that quotes the
// configured key (no sk- prefix to recognise) in its error must not put it in the turn's
// error, the audit or the console line.
func TestProviderEchoOfTheKeyIsRedacted(t *testing.T) {
	const key = "q7w8e9r0t1y2u3i4o5p6-echo"
	f := enginetest.New(t)
	f.Engine.Costs = &engine.CostBudget{Prices: map[string]engine.Price{
		"test-model": {InputPerMTok: money.MustParse("1"), OutputPerMTok: money.MustParse("10")}}}
	srv := &fakeServer{replies: []reply{{401, `{"error": {"message": "Incorrect API key provided: ` + key + `. You can find your key at https://example.test"}}`}}}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	m, err := mandatefile.Load(f.Root, live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{BaseURL: ts.URL + "/v1", Model: "test-model", APIKey: key, MaxOutput: 512, Mandate: Summary(m), Now: f.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Turn(context.Background(), f.Engine.NewTurn(a.Name()))
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("turn: %v, want the provider's 401", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("the turn's error holds the key: %v", err)
	}
	for _, e := range f.Events() {
		if strings.Contains(e.Payload+e.Summary, key) {
			t.Errorf("audit event %d holds the key: %s", e.Seq, e.Payload)
		}
	}
}
