package config

import (
	"os"
	"strings"
	"testing"

	"cockpit/live"
)

// TestAlpacaTemplate: the written template loads, selects the alpaca table in paper mode with
// the default variable names, and holds no key.
func TestAlpacaTemplate(t *testing.T) {
	root := live.Root(t.TempDir())
	res, err := AddBrokerTemplate(root, KindAlpaca)
	if err != nil || res != BrokerTemplateWritten {
		t.Fatalf("got %v, %v; want a new file", res, err)
	}
	c, err := Load(root)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if c.Cockpit.Broker != "alpaca" {
		t.Fatalf("cockpit.broker = %q, want alpaca", c.Cockpit.Broker)
	}
	b, ok := c.Broker("alpaca")
	if !ok || b.Kind != KindAlpaca || b.Mode != ModePaper || b.Live() {
		t.Fatalf("table = %+v, %v; want a paper alpaca table", b, ok)
	}
	if k, s := b.Alpaca.Envs(); k != AlpacaKeyEnv || s != AlpacaSecretEnv {
		t.Fatalf("envs = %s, %s", k, s)
	}
	if base, data := b.Alpaca.URLs(b.Mode); base != AlpacaPaperURL || data != AlpacaDataURL {
		t.Fatalf("urls = %s, %s; want paper and data defaults", base, data)
	}
	text, _ := os.ReadFile(Path(root))
	if !strings.Contains(string(text), "# base_url =") || !strings.Contains(string(text), `key_env = "APCA_API_KEY_ID"`) {
		t.Fatalf("template lacks the commented alpaca fields:\n%s", text)
	}
	if again, err := AddBrokerTemplate(root, KindAlpaca); again != BrokerTemplatePresent || err != nil {
		t.Fatalf("second write: %v, %v; want left alone", again, err)
	}
	// An existing config gets the other kind's table appended once, keeping its broker.
	if res, err := AddBrokerTemplate(root, KindMCP); res != BrokerTemplateAdded || err != nil {
		t.Fatalf("mcp into an existing file: %v, %v; want added", res, err)
	}
	if c, err := Load(root); err != nil || c.Cockpit.Broker != "alpaca" {
		t.Fatalf("after adding mcp: broker %q, %v", c.Cockpit.Broker, err)
	}
}

func TestAlpacaValidate(t *testing.T) {
	cases := []struct {
		name string
		a    Alpaca
		mode string
		want string
	}{
		{"ok", Alpaca{}, ModePaper, ""},
		{"ok live", Alpaca{BaseURL: AlpacaLiveURL}, ModeLive, ""},
		{"loopback http", Alpaca{BaseURL: "http://127.0.0.1:8080", DataURL: "http://localhost:1"}, ModePaper, ""},
		{"live url in paper mode", Alpaca{BaseURL: AlpacaLiveURL}, ModePaper, "not Alpaca's paper trading host"},
		{"plain http", Alpaca{BaseURL: "http://example.com"}, ModePaper, "loopback"},
		{"userinfo", Alpaca{DataURL: "https://k:s@data.alpaca.markets"}, ModePaper, "credentials"},
		{"a key as env name", Alpaca{KeyEnv: "PK-ABC/123"}, ModePaper, "NAME of an environment variable"},
		{"feed", Alpaca{Feed: "nasdaq"}, ModePaper, "feed"},
		{"backoff", Alpaca{StreamBackoff: Duration{-1}}, ModePaper, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.validate("brokers.alpaca", tc.mode)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want ok", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestPaperModeRefusesEveryLiveSpelling: a paper table's trading URL is compared by host, so
// no spelling of the live API (case, trailing slash or dot, explicit port) passes as paper.
func TestPaperModeRefusesEveryLiveSpelling(t *testing.T) {
	for _, u := range []string{AlpacaLiveURL, "https://api.alpaca.markets/", "https://API.alpaca.markets", "https://api.alpaca.markets:443",
		"https://api.alpaca.markets./", "https://broker-api.alpaca.markets"} {
		if err := (Alpaca{BaseURL: u}).validate("brokers.alpaca", ModePaper); err == nil {
			t.Errorf("mode = paper accepts base_url %q", u)
		}
	}
	for _, u := range []string{"", AlpacaPaperURL, "https://PAPER-API.alpaca.markets./", "http://127.0.0.1:8080"} {
		if err := (Alpaca{BaseURL: u}).validate("brokers.alpaca", ModePaper); err != nil {
			t.Errorf("mode = paper refuses base_url %q: %v", u, err)
		}
	}
}
