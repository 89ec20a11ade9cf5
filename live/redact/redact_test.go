package redact

import (
	"encoding/json"
	"os"
	"testing"

	"cockpit/live/jsonv"
)

// TestRedactTextMatchesPythonRe compares the hand-written matchers with CPython's re running
// the reference's three patterns on 8,000 generated strings (testdata/gen_redact_text.py).
func TestRedactTextMatchesPythonRe(t *testing.T) {
	raw, err := os.ReadFile("testdata/redact_text.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Input, Expected string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, c := range cases {
		if got := Text(c.Input); got != c.Expected {
			t.Errorf("Text(%q) = %q, want %q", c.Input, got, c.Expected)
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
}

// redactCorpus is the reference's redaction text cases.
func redactCorpus(t *testing.T) []struct{ Input, Expected string } {
	t.Helper()
	raw, err := os.ReadFile("testdata/redact_text.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Input, Expected string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestRedactTextIdempotent(t *testing.T) {
	for _, c := range redactCorpus(t) {
		once := Text(c.Input)
		if twice := Text(once); twice != once {
			t.Errorf("Text not idempotent on %q: %q → %q", c.Input, once, twice)
		}
	}
}

func TestIsSensitiveKey(t *testing.T) {
	cases := []struct {
		key          string
		args, result bool
	}{
		{"api_key", true, true},
		{"content", true, false},
		{" Con-tent ", true, false},
		{"secret_content", true, true},
		{"account_ref", false, false},
		{"max_tokens", true, true},
		{"TAX_İD", true, true},
		{"ａｐｉ_ｋｅｙ", false, false},
		{"symbol", false, false},
	}
	for _, c := range cases {
		if got := IsSensitiveKey(c.key, SinkArguments); got != c.args {
			t.Errorf("IsSensitiveKey(%q, arguments) = %v, want %v", c.key, got, c.args)
		}
		if got := IsSensitiveKey(c.key, SinkResult); got != c.result {
			t.Errorf("IsSensitiveKey(%q, result) = %v, want %v", c.key, got, c.result)
		}
		if got := IsSensitiveKey(c.key, "typo"); got != c.args {
			t.Errorf("IsSensitiveKey(%q, typo) = %v, want the arguments answer %v", c.key, got, c.args)
		}
	}
}

func TestRedactPayloadDoesNotMutate(t *testing.T) {
	in := jsonv.ObjectOf("token", "abc", "nested", []any{jsonv.ObjectOf("note", "api_key=zzz")})
	before := jsonv.Clone(in)
	out := Payload(in, SinkArguments)
	if !jsonv.Equal(in, before) {
		t.Fatal("input was modified")
	}
	want := jsonv.ObjectOf("token", Redacted, "nested", []any{jsonv.ObjectOf("note", "api_key=[redacted]")})
	if !jsonv.Equal(out, want) {
		t.Fatalf("got %s", jsonv.MustMarshal(out, jsonv.Compact))
	}
}

func TestRedactToolResult(t *testing.T) {
	deep := ""
	for i := 0; i < 2000; i++ {
		deep += "["
	}
	cases := []struct {
		in, want string
		err      error
	}{
		{`{"api_key": "raw", "n": NaN}`, `{"api_key": "[redacted]", "n": NaN}`, nil},
		{`not json token=abc`, `not json token=[redacted]`, nil},
		{``, ``, nil},
		{deep, ``, ErrTooDeep},
	}
	for _, c := range cases {
		got, err := ToolResult(c.in)
		if err != c.err || got != c.want {
			t.Errorf("ToolResult(%.40q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}
