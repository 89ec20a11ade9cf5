package config

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Notify configures one-way notifications (issue 29): named sinks that get a message when
// something needs a human. Secrets (webhook URLs, bot tokens) are read from the environment
// variables the sinks name, never from this file.
type Notify struct {
	RatePerMinute int                   `toml:"rate_per_minute"` // messages per sink and event a minute (also the burst)
	Queue         int                   `toml:"queue"`           // messages a slow sink holds; beyond it the oldest is dropped
	Timeout       Duration              `toml:"timeout"`         // one HTTP attempt
	Retries       int                   `toml:"retries"`         // attempts after the first, on a network error, 429 or 5xx
	Backoff       Duration              `toml:"backoff"`         // the first retry's delay; it doubles after each
	Sinks         map[string]NotifySink `toml:"sinks"`           // by name: [notify.sinks.NAME]
}

// NotifySink is one destination.
type NotifySink struct {
	Type      string   `toml:"type"`       // webhook | ntfy | slack | discord | telegram
	URLEnv    string   `toml:"url_env"`    // the variable holding the URL (webhook, ntfy topic, Slack or Discord webhook)
	TokenEnv  string   `toml:"token_env"`  // telegram: the bot token; ntfy and webhook: an optional bearer token
	ChatID    string   `toml:"chat_id"`    // telegram: the chat (a number, or @channel)
	BaseURL   string   `toml:"base_url"`   // telegram: the Bot API ("" = https://api.telegram.org)
	Events    []string `toml:"events"`     // which events it gets; unset = all
	AllowHTTP bool     `toml:"allow_http"` // allow plain http:// to a host other than loopback
}

// NotifyEvents are the events a sink can get, in the order the template lists them.
var NotifyEvents = []string{"review", "halt", "loss_limit", "fleet_down", "broker_down", "plugin_disabled", "flatten_failed"}

// NotifyTypes are the sink types.
var NotifyTypes = []string{"webhook", "ntfy", "slack", "discord", "telegram"}

// DefaultNotify has no sinks: nothing is sent until the operator adds one.
func DefaultNotify() Notify {
	return Notify{RatePerMinute: 6, Queue: 64, Timeout: Duration{10 * time.Second}, Retries: 3, Backoff: Duration{2 * time.Second}}
}

// unset reports a Notify that nothing set (a Config built field by field): no sinks, no values.
func (n Notify) unset() bool {
	return n.Sinks == nil && n.RatePerMinute == 0 && n.Queue == 0 && n.Timeout.Duration == 0 && n.Retries == 0 && n.Backoff.Duration == 0
}

// Enabled reports whether any sink is configured.
func (n Notify) Enabled() bool { return len(n.Sinks) > 0 }

// Validate names the first bad [notify] key and its value.
func (n Notify) Validate() error {
	bad := func(key string, value any, want string) error {
		return fmt.Errorf("config: notify.%s = %v: %s", key, value, want)
	}
	if n.unset() {
		return nil
	}
	switch {
	case n.RatePerMinute < 1 || n.RatePerMinute > 10000:
		return bad("rate_per_minute", n.RatePerMinute, "want 1 to 10000")
	case n.Queue < 1 || n.Queue > 10000:
		return bad("queue", n.Queue, "want 1 to 10000")
	case n.Timeout.Duration <= 0 || n.Timeout.Duration > 2*time.Minute:
		return bad("timeout", n.Timeout, "want a duration above 0 and at most 2m")
	case n.Retries < 0 || n.Retries > 10:
		return bad("retries", n.Retries, "want 0 to 10")
	case n.Backoff.Duration <= 0 || n.Backoff.Duration > time.Minute:
		return bad("backoff", n.Backoff, "want a duration above 0 and at most 1m")
	}
	for _, name := range slices.Sorted(maps.Keys(n.Sinks)) {
		if err := n.Sinks[name].validate("sinks." + name); err != nil {
			return err
		}
	}
	return nil
}

func (s NotifySink) validate(key string) error {
	bad := func(field string, value any, want string) error {
		return fmt.Errorf("config: notify.%s.%s = %v: %s", key, field, value, want)
	}
	if !slices.Contains(NotifyTypes, s.Type) {
		return bad("type", strconv.Quote(s.Type), "want webhook, ntfy, slack, discord or telegram")
	}
	for field, v := range map[string]string{"url_env": s.URLEnv, "token_env": s.TokenEnv} {
		if v != "" && !envName.MatchString(v) {
			return bad(field, strconv.Quote(v), "want the NAME of an environment variable (letters, digits, _), not its value")
		}
	}
	if s.Type == "telegram" {
		if err := s.validateTelegram(bad); err != nil {
			return err
		}
	} else {
		if s.URLEnv == "" {
			return bad("url_env", `""`, "name the environment variable that holds the URL (the URL is a secret: it is never written here)")
		}
		if s.ChatID != "" {
			return bad("chat_id", strconv.Quote(s.ChatID), "chat_id is for telegram sinks only")
		}
		if s.BaseURL != "" {
			return bad("base_url", strconv.Quote(s.BaseURL), "base_url is for telegram sinks only (the URL of the others is in url_env)")
		}
		if s.TokenEnv != "" && s.Type != "webhook" && s.Type != "ntfy" {
			return bad("token_env", strconv.Quote(s.TokenEnv), "a "+s.Type+" webhook URL carries its own secret; token_env is for telegram, ntfy and webhook")
		}
	}
	if s.Events != nil && len(s.Events) == 0 {
		return bad("events", "[]", "a sink with no events gets nothing; remove the line for all events, or the sink")
	}
	for _, e := range s.Events {
		if !slices.Contains(NotifyEvents, e) {
			return bad("events", strconv.Quote(e), "want any of review, halt, loss_limit, fleet_down, broker_down, plugin_disabled, flatten_failed")
		}
	}
	return nil
}

var telegramChat = regexp.MustCompile(`^(-?[0-9]{1,20}|@[A-Za-z0-9_]{5,64})$`)

func (s NotifySink) validateTelegram(bad func(string, any, string) error) error {
	if s.URLEnv != "" {
		return bad("url_env", strconv.Quote(s.URLEnv), "a telegram sink takes token_env and chat_id (and base_url), not url_env")
	}
	if s.TokenEnv == "" {
		return bad("token_env", `""`, "name the environment variable that holds the bot token")
	}
	if !telegramChat.MatchString(s.ChatID) {
		return bad("chat_id", strconv.Quote(s.ChatID), "want a chat id (a number such as -1001234567890) or @channelname")
	}
	if s.BaseURL != "" {
		u, err := url.Parse(s.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" {
			return bad("base_url", strconv.Quote(s.BaseURL), "want an absolute http(s) URL such as https://api.telegram.org")
		}
	}
	return nil
}

// TemplateNotify is the [notify] section of the config template.
const TemplateNotify = `
# Notifications: a one-way message when a review waits, trading halts (a loss limit says so), a
# fleet or broker link goes down, a plugin is disabled or a flatten fails. Approving stays on the
# screen, over SSH and in the CLI. A slow or dead sink never delays an order: messages queue per
# sink (the oldest dropped beyond queue), are retried with backoff, and each send is audited.
[notify]
rate_per_minute = 6    # per sink and event; the rest are counted and said in the next message
queue = 64
timeout = "10s"        # one attempt
retries = 3            # after a network error, 429 or 5xx; the delay starts at backoff and doubles
backoff = "2s"
# Sinks: the URL or token is read from the environment variable named here, never stored.
# [notify.sinks.ops]
# type = "webhook"             # JSON: {"source","event","title","text","priority","time","ref","deadline"}
# url_env = "COCKPIT_WEBHOOK_URL"
# token_env = ""               # optional: sent as Authorization: Bearer
# events = ["review", "halt", "loss_limit", "fleet_down", "broker_down", "plugin_disabled", "flatten_failed"]
# [notify.sinks.phone]
# type = "ntfy"                # POST to the topic URL (ntfy.sh or self-hosted); the topic is a secret
# url_env = "COCKPIT_NTFY_URL" # e.g. https://ntfy.sh/some-unguessable-topic
# token_env = ""               # optional access token for a protected topic
# [notify.sinks.chat]
# type = "slack"               # or "discord": an incoming-webhook URL
# url_env = "COCKPIT_SLACK_WEBHOOK"
# [notify.sinks.tg]
# type = "telegram"            # Bot API sendMessage
# token_env = "COCKPIT_TELEGRAM_TOKEN"
# chat_id = "-1001234567890"
# allow_http = false           # any sink: plain http:// only to loopback unless true
`
