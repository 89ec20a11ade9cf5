package redact

import "testing"

// TestRedactSecretsAcrossTokensAndLines (review of issue 10 item 8): credentials that span
// tokens or lines are hidden whole — the base64 user:password after "Authorization: Basic"
// (the reference pass hid only the word Basic), a PEM private key, and a quoted env-style
// secret over several lines (before: left entirely in clear).
func TestRedactSecretsAcrossTokensAndLines(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: [redacted] [redacted]"},
		{"proxy-authorization = Bearer abc.def.ghi\nnext", "proxy-authorization = Bearer [redacted]\nnext"},
		{`{"Authorization": "Basic dXNlcjpwYXNz"}`, `{"Authorization": "[redacted]"}`},
		{"authorization header missing", "authorization header missing"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef\n-----END RSA PRIVATE KEY-----\nok",
			"-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----\nok"},
		{`{"key": "-----BEGIN PRIVATE KEY-----\nMIIEabc\n-----END PRIVATE KEY-----\n"}`,
			`{"key": "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\n"}`},
		{"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"BROKER_PRIVATE_KEY=\"line1\nline2\nline3\" rest", "BROKER_PRIVATE_KEY=\"[redacted]\" rest"},
		{"ALPACA_API_SECRET='abc\ndef", "ALPACA_API_SECRET=[redacted]\ndef"},
	}
	for _, c := range cases {
		got := Secrets(c.in)
		if got != c.want {
			t.Errorf("Secrets(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Secrets(got); again != got {
			t.Errorf("Secrets is not idempotent on %q: %q", got, again)
		}
	}
}
