package notify

import (
	"strings"
	"testing"

	"cockpit/config"
	"cockpit/live/redact"
)

// TestTargetsRefuse: a sink whose variable is empty or holds an unusable URL is an error
// naming the key and the variable, never the value.
func TestTargetsRefuse(t *testing.T) {
	const hook = "https://hooks.example.com/services/T0/B0/notsosecret42"
	cases := []struct {
		name string
		sink config.NotifySink
		env  map[string]string
		want string
	}{
		{"empty url variable", config.NotifySink{Type: "slack", URLEnv: "HOOK"}, nil,
			`config: notify.sinks.s.url_env = "HOOK": the variable is empty`},
		{"empty token variable", config.NotifySink{Type: "telegram", TokenEnv: "TG", ChatID: "42"}, nil,
			`config: notify.sinks.s.token_env = "TG": the variable is empty`},
		{"not a URL", config.NotifySink{Type: "webhook", URLEnv: "HOOK"}, map[string]string{"HOOK": "hooks.example.com/notsosecret42"},
			`notify.sinks.s.url_env = "HOOK": the URL in it is not an absolute http(s) URL`},
		{"plain http off loopback", config.NotifySink{Type: "ntfy", URLEnv: "HOOK"}, map[string]string{"HOOK": "http://ntfy.example.com/notsosecret42"},
			"is plain http to a host that is not loopback"},
		{"telegram base_url plain http", config.NotifySink{Type: "telegram", TokenEnv: "TG", ChatID: "42", BaseURL: "http://tg.example.com"},
			map[string]string{"TG": "123456:ABCDEFGH"}, "notify.sinks.s.base_url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Targets(config.Notify{Sinks: map[string]config.NotifySink{"s": c.sink}}, func(k string) string { return c.env[k] })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "notsosecret42") || strings.Contains(err.Error(), "ABCDEFGH") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
	// allowed: loopback http, and http anywhere with allow_http
	for _, sc := range []config.NotifySink{{Type: "webhook", URLEnv: "A"}, {Type: "webhook", URLEnv: "B", AllowHTTP: true}} {
		env := map[string]string{"A": "http://127.0.0.1:9/x", "B": "http://lan-box:8080/x", "H": hook}
		if _, err := Targets(config.Notify{Sinks: map[string]config.NotifySink{"s": sc}}, func(k string) string { return env[k] }); err != nil {
			t.Errorf("%+v: %v", sc, err)
		}
	}
}

// TestTargetsRegisterSecrets: the URL and the token read from the environment are scrubbed by
// every redaction from then on (log, audit, screen).
func TestTargetsRegisterSecrets(t *testing.T) {
	const url, tok = "https://hooks.example.com/services/T0/B0/reg1st3red", "987654:tokenvalue-xyz"
	env := map[string]string{"U": url, "T": tok}
	_, err := Targets(config.Notify{Sinks: map[string]config.NotifySink{
		"a": {Type: "discord", URLEnv: "U"}, "b": {Type: "telegram", TokenEnv: "T", ChatID: "@cockpit_ops"}}}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	got := redact.Secrets("posting to " + url + " with bot" + tok + "/sendMessage")
	if strings.Contains(got, "reg1st3red") || strings.Contains(got, "tokenvalue-xyz") {
		t.Errorf("not scrubbed: %s", got)
	}
}

// TestFromConfigNoSinks: no sinks, no notifier (and a nil notifier takes posts).
func TestFromConfigNoSinks(t *testing.T) {
	n, err := FromConfig(config.DefaultNotify(), func(string) string { return "" }, Options{})
	if n != nil || err != nil {
		t.Fatalf("got %v, %v; want nil, nil", n, err)
	}
	n.Post(Message{Event: EvHalt})
	n.Close()
}
