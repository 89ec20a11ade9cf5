package notify

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"cockpit/config"
	"cockpit/live/redact"
)

// DefaultTelegramAPI is the Bot API's base URL.
const DefaultTelegramAPI = "https://api.telegram.org"

// Targets builds the configured sinks, reading each secret from the environment variable the
// config names (and registering it for redaction). A variable that is empty or holds no
// usable URL is an error naming the key and the variable, never its value.
func Targets(cfg config.Notify, getenv func(string) string) ([]Target, error) {
	var out []Target
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is an answer, not a second destination for the secret
	}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Sinks)) {
		sc := cfg.Sinks[name]
		f, err := buildFormat(name, sc, getenv)
		if err != nil {
			return nil, err
		}
		t := Target{Sink: &httpSink{name: name, kind: sc.Type, client: client, fmt: f}}
		for _, e := range sc.Events {
			t.Events = append(t.Events, Event(e))
		}
		out = append(out, t)
	}
	return out, nil
}

func buildFormat(name string, sc config.NotifySink, getenv func(string) string) (format, error) {
	key := "notify.sinks." + name
	secret := func(field, env string) (string, error) {
		v := strings.TrimSpace(getenv(env))
		if v == "" {
			return "", fmt.Errorf("config: %s.%s = %q: the variable is empty; export it, or remove the sink", key, field, env)
		}
		redact.RegisterSecret(v)
		return v, nil
	}
	token := ""
	if sc.TokenEnv != "" {
		var err error
		if token, err = secret("token_env", sc.TokenEnv); err != nil {
			return nil, err
		}
	}
	if sc.Type == "telegram" {
		base := sc.BaseURL
		if base == "" {
			base = DefaultTelegramAPI
		}
		if err := checkURL(base, sc.AllowHTTP); err != nil {
			return nil, fmt.Errorf("config: %s.base_url = %q: %v", key, base, err)
		}
		return telegram{base: base, token: token, chat: sc.ChatID}, nil
	}
	u, err := secret("url_env", sc.URLEnv)
	if err != nil {
		return nil, err
	}
	if err := checkURL(u, sc.AllowHTTP); err != nil {
		return nil, fmt.Errorf("config: %s.url_env = %q: the URL in it %v", key, sc.URLEnv, err)
	}
	switch sc.Type {
	case "webhook":
		return webhook{url: u, token: token}, nil
	case "ntfy":
		return ntfy{url: u, token: token}, nil
	case "slack":
		return slack{url: u}, nil
	case "discord":
		return discord{url: u}, nil
	}
	return nil, fmt.Errorf("config: %s.type = %q: want webhook, ntfy, slack, discord or telegram", key, sc.Type)
}

// checkURL accepts an absolute https URL, or http to a loopback host (or anywhere with
// allow_http). The URL itself is never put in the error.
func checkURL(raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("is not an absolute http(s) URL")
	}
	if u.Scheme == "http" && !allowHTTP && !loopback(u.Hostname()) {
		return fmt.Errorf("is plain http to a host that is not loopback: the secret would cross the network in clear (use https, or allow_http = true)")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// FromConfig builds a Notifier from [notify] (nil without sinks). o carries the audit sink,
// actor, broker, log and clock; the config gives the targets, rate, queue, retries and timeouts.
func FromConfig(cfg config.Notify, getenv func(string) string, o Options) (*Notifier, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	ts, err := Targets(cfg, getenv)
	if err != nil {
		return nil, err
	}
	o.Targets, o.Rate, o.Queue, o.Retries = ts, cfg.RatePerMinute, cfg.Queue, cfg.Retries
	o.Backoff, o.Timeout = cfg.Backoff.Duration, cfg.Timeout.Duration
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	return New(o), nil
}
