package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Alpaca endpoints: the SDK defaults to live trading, so cockpit always names one itself.
const (
	AlpacaPaperURL = "https://paper-api.alpaca.markets"
	AlpacaLiveURL  = "https://api.alpaca.markets"
	AlpacaDataURL  = "https://data.alpaca.markets"
)

// Default names of the environment variables holding the Alpaca keys.
const (
	AlpacaKeyEnv    = "APCA_API_KEY_ID"
	AlpacaSecretEnv = "APCA_API_SECRET_KEY"
)

// Alpaca holds the fields of a kind = "alpaca" broker table. The keys themselves are never
// in the file: key_env and secret_env name the environment variables that hold them.
type Alpaca struct {
	BaseURL          string   `toml:"base_url"`           // trading API; empty = paper, or live for mode = "live"
	DataURL          string   `toml:"data_url"`           // market data API; empty = https://data.alpaca.markets
	KeyEnv           string   `toml:"key_env"`            // variable holding the key id; empty = APCA_API_KEY_ID
	SecretEnv        string   `toml:"secret_env"`         // variable holding the secret; empty = APCA_API_SECRET_KEY
	Feed             string   `toml:"feed"`               // quotes feed: iex (default) | sip | delayed_sip
	StreamBackoff    Duration `toml:"stream_backoff"`     // first wait before the trade-updates stream reconnects
	StreamBackoffMax Duration `toml:"stream_backoff_max"` // longest wait between reconnects
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Envs returns the names of the key and secret variables, defaults filled in.
func (a Alpaca) Envs() (key, secret string) {
	key, secret = a.KeyEnv, a.SecretEnv
	if key == "" {
		key = AlpacaKeyEnv
	}
	if secret == "" {
		secret = AlpacaSecretEnv
	}
	return key, secret
}

// URLs returns the trading and data base URLs for mode, defaults filled in: the live
// trading URL only when mode is live.
func (a Alpaca) URLs(mode string) (base, data string) {
	base, data = a.BaseURL, a.DataURL
	if base == "" {
		base = AlpacaPaperURL
		if mode == ModeLive {
			base = AlpacaLiveURL
		}
	}
	if data == "" {
		data = AlpacaDataURL
	}
	return base, data
}

// FeedName returns the quotes feed, iex by default.
func (a Alpaca) FeedName() string {
	if a.Feed == "" {
		return "iex"
	}
	return a.Feed
}

// validate checks the Alpaca fields of [field].
func (a Alpaca) validate(field string, mode string) error {
	for _, u := range []struct{ name, v string }{{"base_url", a.BaseURL}, {"data_url", a.DataURL}} {
		if u.v == "" {
			continue
		}
		if err := checkBrokerURL(u.v); err != nil {
			return fmt.Errorf("config: %s.%s = %q: %v", field, u.name, u.v, err)
		}
	}
	if base, _ := a.URLs(mode); mode != ModeLive {
		if err := CheckAlpacaPaperURL(base); err != nil {
			return fmt.Errorf("config: %s.base_url = %q: %v, but mode = %q: set mode = \"live\" (and run with --live) or use %s", field, base, err, mode, AlpacaPaperURL)
		}
	}
	for _, e := range []struct{ name, v string }{{"key_env", a.KeyEnv}, {"secret_env", a.SecretEnv}} {
		if e.v != "" && !envName.MatchString(e.v) {
			return fmt.Errorf("config: %s.%s: want the NAME of an environment variable (letters, digits, _), never the key itself", field, e.name)
		}
	}
	switch a.Feed {
	case "", "iex", "sip", "delayed_sip":
	default:
		return fmt.Errorf("config: %s.feed = %q: want iex, sip or delayed_sip", field, a.Feed)
	}
	if a.StreamBackoff.Duration < 0 || a.StreamBackoffMax.Duration < 0 {
		return fmt.Errorf("config: %s.stream_backoff and stream_backoff_max must not be negative", field)
	}
	return nil
}

// CheckAlpacaPaperURL refuses a trading URL a paper-mode table must not use: anything but
// Alpaca's paper host (compared by host name, whatever its case, port or trailing dot) or a
// loopback address (a local fake). Another spelling of the live API is real money.
func CheckAlpacaPaperURL(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not an absolute URL")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if isLoopbackHost(host) {
		return nil
	}
	if paper, _ := url.Parse(AlpacaPaperURL); host != paper.Hostname() {
		return fmt.Errorf("%s is not Alpaca's paper trading host %s", host, paper.Hostname())
	}
	return nil
}

// checkBrokerURL accepts https URLs, and http only on a loopback address (a local fake).
func checkBrokerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not an absolute URL")
	}
	if u.User != nil {
		return fmt.Errorf("credentials do not belong in the URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("http is allowed only on a loopback address; use https")
	}
	return fmt.Errorf("want an https URL")
}
