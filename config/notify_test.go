package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestNotifyValidation: each bad [notify] key is named with its value and what fixes it.
func TestNotifyValidation(t *testing.T) {
	cases := []struct{ toml, want string }{
		{"[notify]\nrate_per_minute = 0", "notify.rate_per_minute = 0: want 1 to 10000"},
		{"[notify]\nqueue = -1", "notify.queue = -1"},
		{"[notify]\ntimeout = \"0s\"", "notify.timeout = 0s"},
		{"[notify]\nretries = 11", "notify.retries = 11: want 0 to 10"},
		{"[notify]\nbackoff = \"2m\"", "notify.backoff = 2m0s"},
		{"[notify]\nwebhook = \"x\"", "unknown key notify.webhook"},
		{"[notify.sinks.ops]\ntype = \"webhook\"\nurl = \"https://x\"", "unknown key notify.sinks.ops.url"},
		{"[notify.sinks.ops]\ntype = \"pager\"\nurl_env = \"X\"", `notify.sinks.ops.type = "pager": want webhook, ntfy, slack, discord or telegram`},
		{"[notify.sinks.ops]\ntype = \"webhook\"", `notify.sinks.ops.url_env = "": name the environment variable`},
		{"[notify.sinks.ops]\ntype = \"slack\"\nurl_env = \"https://hooks.slack.com/services/T/B/X\"", `notify.sinks.ops.url_env = "https://hooks.slack.com/services/T/B/X": want the NAME of an environment variable`},
		{"[notify.sinks.ops]\ntype = \"slack\"\nurl_env = \"H\"\ntoken_env = \"T\"", `notify.sinks.ops.token_env = "T"`},
		{"[notify.sinks.ops]\ntype = \"discord\"\nurl_env = \"H\"\nchat_id = \"1\"", `notify.sinks.ops.chat_id = "1": chat_id is for telegram sinks only`},
		{"[notify.sinks.ops]\ntype = \"webhook\"\nurl_env = \"H\"\nevents = []", "notify.sinks.ops.events = []"},
		{"[notify.sinks.ops]\ntype = \"webhook\"\nurl_env = \"H\"\nevents = [\"halts\"]", `notify.sinks.ops.events = "halts"`},
		{"[notify.sinks.tg]\ntype = \"telegram\"\nchat_id = \"42\"", `notify.sinks.tg.token_env = "": name the environment variable`},
		{"[notify.sinks.tg]\ntype = \"telegram\"\ntoken_env = \"T\"", `notify.sinks.tg.chat_id = "": want a chat id`},
		{"[notify.sinks.tg]\ntype = \"telegram\"\ntoken_env = \"T\"\nchat_id = \"42\"\nurl_env = \"U\"", `notify.sinks.tg.url_env = "U": a telegram sink takes token_env`},
		{"[notify.sinks.tg]\ntype = \"telegram\"\ntoken_env = \"T\"\nchat_id = \"42\"\nbase_url = \"api.telegram.org\"", `notify.sinks.tg.base_url = "api.telegram.org"`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.toml), Default())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.toml, err, c.want)
		}
	}
}

// TestNotifySinksParse: every sink type of the template, uncommented, loads as written.
func TestNotifySinksParse(t *testing.T) {
	uncommented := strings.NewReplacer("# [notify.sinks", "[notify.sinks", "# type", "type", "# url_env", "url_env",
		"# token_env", "token_env", "# chat_id", "chat_id", "# events", "events", "# allow_http", "allow_http").Replace(TemplateNotify)
	cfg, err := Parse([]byte(uncommented), Default())
	if err != nil {
		t.Fatalf("template uncommented: %v\n%s", err, uncommented)
	}
	n := cfg.Notify
	if !n.Enabled() || len(n.Sinks) != 4 || n.Sinks["tg"].ChatID != "-1001234567890" || n.Sinks["ops"].URLEnv != "COCKPIT_WEBHOOK_URL" ||
		len(n.Sinks["ops"].Events) != len(NotifyEvents) || n.Sinks["phone"].Events != nil || n.Timeout.Duration != 10*time.Second {
		t.Fatalf("parsed %+v", n)
	}
	def, err := Parse([]byte(Template), Config{})
	if err != nil || !reflect.DeepEqual(def.Notify, DefaultNotify()) {
		t.Fatalf("the template's [notify] is not the default: %+v %v", def.Notify, err)
	}
}
