package redact

import (
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

// fuzzSecret is registered for FuzzRedact; it must never survive Secrets.
const fuzzSecret = "fz-SECRET-7f3a9c2e5b"

// FuzzRedact: text, payload and tool-result redaction never panic; a registered secret never
// survives Secrets whatever surrounds it; Payload leaves its input alone; a JSON tool result
// stays JSON.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		`{"token": "abc", "note": "api_key=zzz", "nested": [{"password": "p"}]}`,
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def",
		`sk-ant-api03-xxxxxxxxxxxxxxxxxxxx and AKIAIOSFODNN7EXAMPLE`,
		`{"a": NaN, "b": [1, 2, {"secret": Infinity}]}`, "plain text", "",
		"fz-SECRET-7f3a9c2e5", `"fz-SECRET-7f3a9c2e5b"`,
	} {
		f.Add(s, "")
	}
	forget := RegisterSecret(fuzzSecret)
	f.Cleanup(forget)
	f.Fuzz(func(t *testing.T, s, tail string) {
		_ = Text(s)
		if out := Secrets(s + fuzzSecret + tail); strings.Contains(out, fuzzSecret) {
			t.Fatalf("the secret survived: %q", out)
		}
		if res, err := ToolResult(s); err == nil {
			if _, perr := jsonv.ParseString(s, jsonv.Options{NonFinite: true}); perr == nil {
				if _, err := jsonv.ParseString(res, jsonv.Options{NonFinite: true}); err != nil {
					t.Fatalf("a JSON result redacted to non-JSON %q: %v", res, err)
				}
			}
		}
		doc, err := jsonv.ParseString(s, jsonv.Options{NonFinite: true, MaxDepth: 64})
		if err != nil {
			return
		}
		before := jsonv.MustMarshal(doc, jsonv.Python)
		Payload(doc, SinkArguments)
		ForStorage(doc)
		if after := jsonv.MustMarshal(doc, jsonv.Python); string(after) != string(before) {
			t.Fatalf("redaction modified its input: %s → %s", before, after)
		}
	})
}
