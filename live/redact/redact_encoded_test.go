package redact

import "testing"

// TestRedactSecretsEncodedSpellings (review of issue 10 item 8): a configured secret is
// scrubbed by value in the spellings a provider or a page echoes it in — percent-encoded in a
// URL, JSON-escaped inside a string, case-changed, wrapped across lines — and an env-style
// credential inside a JSON text carried as a string is redacted too.
func TestRedactSecretsEncodedSpellings(t *testing.T) {
	forget := RegisterSecret("sk-AbC+dEf/GhI=jKlMn")
	defer forget()
	cases := []struct{ in, want string }{
		{"GET https://api.example/v1?k=sk-AbC%2BdEf%2FGhI%3DjKlMn&x=1", "GET https://api.example/v1?k=[redacted]&x=1"},
		{`{"echo":"sk-AbC\u002bdEf\/GhI\u003djKlMn"}`, `{"echo":"[redacted]"}`},
		{"key SK-ABC+DEF/GHI=JKLMN rejected", "key [redacted] rejected"},
		{"sk-AbC+dEf/\nGhI=jKlMn.", "[redacted]."},
		{`"body": "sk-AbC+dEf/\nGhI=jKlMn"`, `"body": "[redacted]"`},
		{`{\"ALPACA_API_SECRET\": \"abc123456\"}`, `{\"ALPACA_API_SECRET\": \"[redacted]\"}`},
		{"sk-AbC+dEf/GhI=jKl and more", "sk-AbC+dEf/GhI=jKl and more"}, // a prefix is not the secret
		{"100% sure, 50%2 off", "100% sure, 50%2 off"},
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
}
