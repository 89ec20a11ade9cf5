package redact

import (
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

// TestRedactSecretsCockpitRules is issue 10 item 8: environment-style credentials, URL
// user-info and registered secret values are redacted by Secrets (what the store, the
// log and the console apply), while Text keeps the reference's behaviour.
func TestRedactSecretsCockpitRules(t *testing.T) {
	forget := RegisterSecret("9f8e7d6c5b4a39281706")
	defer forget()
	defer RegisterSecret("abc")() // too short to scrub
	cases := []struct{ in, want string }{
		{"ALPACA_API_SECRET=value", "ALPACA_API_SECRET=[redacted]"},
		{"export ALPACA_SECRET_KEY=Zx81kq", "export ALPACA_SECRET_KEY=[redacted]"},
		{"APCA_API_SECRET_KEY: 'a b c'", "APCA_API_SECRET_KEY: '[redacted]'"},
		{`{"MY_TOKEN": "tok123"}`, `{"MY_TOKEN": "[redacted]"}`},
		{"gh_token=ghx, next", "gh_token=[redacted], next"},
		{"DB_PASSWORD=hunter2;", "DB_PASSWORD=[redacted];"},
		{"see https://u:pass@host.example/x?q=1", "see https://u:[redacted]@host.example/x?q=1"},
		{"git clone https://tok3n@github.com/o/r", "git clone https://[redacted]@github.com/o/r"},
		{"redis://:p@ss@cache:6379/0", "redis://:[redacted]@cache:6379/0"},
		{"provider said: invalid key 9f8e7d6c5b4a39281706.", "provider said: invalid key [redacted]."},
		{"echo:9f8e7d6c5b4a39281706abc", "echo:[redacted]abc"},
		{"abc stays abc", "abc stays abc"},
		{"SORT_KEY_ID=7 and keyboard=qwerty", "SORT_KEY_ID=7 and keyboard=qwerty"},
		{"https://host.example/path", "https://host.example/path"},
		{"api_key=xyz", "api_key=[redacted]"},
	}
	for _, c := range cases {
		got := Secrets(c.in)
		if got != c.want {
			t.Errorf("Secrets(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Secrets(got); again != got {
			t.Errorf("Secrets is not idempotent on %q: %q", got, again)
		}
	}
	// The reference pass is unchanged: Text still leaves what the vectors pin.
	if got := Text("ALPACA_API_SECRET=value"); got != "ALPACA_API_SECRET=value" {
		t.Errorf("Text changed: %q", got)
	}
}

// TestRedactSecretsIdempotentOnCorpus runs Secrets twice over the reference corpus.
func TestRedactSecretsIdempotentOnCorpus(t *testing.T) {
	for _, c := range redactCorpus(t) {
		once := Secrets(c.Input)
		if twice := Secrets(once); twice != once {
			t.Fatalf("Secrets(%q): once %q, twice %q", c.Input, once, twice)
		}
	}
}

// TestRegisterSecretsFromEnv registers credential-named variables only.
func TestRegisterSecretsFromEnv(t *testing.T) {
	defer RegisterSecretsFromEnv([]string{"ALPACA_API_KEY=PKTESTKEY12345", "HOME=/home/someone-long", "X_SECRET_Y=shh-its-secret"})()
	got := Secrets("PKTESTKEY12345 /home/someone-long shh-its-secret")
	if strings.Contains(got, "PKTESTKEY12345") || strings.Contains(got, "shh-its-secret") || !strings.Contains(got, "/home/someone-long") {
		t.Errorf("got %q", got)
	}
}

// BenchmarkRedactSecretsCorpus times Secrets (what storage, log and console apply) on
// the reference corpus, with two registered values, and ForStorage on the 1 MB payload.
func BenchmarkRedactSecretsCorpus(b *testing.B) {
	defer RegisterSecret("q7w8e9r0t1y2u3i4o5p6")()
	defer RegisterSecret("PKTESTKEY12345")()
	for _, name := range redactTextInputs {
		text := string(benchcorpus.Read(b, name))
		b.Run("text/"+strings.TrimSuffix(name, ".txt"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				Secrets(text)
			}
		})
	}
	raw := benchcorpus.Read(b, "redact_nested_payload_1mb.json")
	doc, err := jsonv.Parse(raw, jsonv.Options{NonFinite: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("storage", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			ForStorage(doc)
		}
	})
}
