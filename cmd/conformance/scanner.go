package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"cockpit/engine/scan"
	"cockpit/live/jsonv"
)

// scanInput returns a scanner case's input, checking a generated one against its length
// (code points) and sha256.
func scanInput(c *jsonv.Object) (string, error) {
	in, _ := caseInput(c)
	s, ok := in.(string)
	if !ok {
		return "", fmt.Errorf("input is %s", jsonv.TypeName(in))
	}
	if n, ok := floatOf(get(c, "input_len")); ok && int(n) != utf8.RuneCountInString(s) {
		return "", fmt.Errorf("input_spec gave %d code points, want %v", utf8.RuneCountInString(s), n)
	}
	if want, ok := str(c, "input_sha256"); ok && sha(s) != want {
		return "", fmt.Errorf("input_spec sha256 %s, want %s", sha(s), want)
	}
	return s, nil
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// scanCase checks the findings (rule, severity, match), the neutralised text (or its
// length and hash), "changed", and idempotence.
func scanCase(e *env, c *jsonv.Object) outcome {
	s, err := scanInput(c)
	if err != nil {
		return failf("%v", err)
	}
	got := scan.Scan(s)
	want, _ := get(c, "findings").([]any)
	if len(got) != len(want) {
		return failf("%d findings %v, oracle %d %s", len(got), got, len(want), show(want))
	}
	for i, w := range want {
		wo := obj(w)
		rule, _ := str(wo, "rule_id")
		sev, _ := str(wo, "severity")
		match, _ := str(wo, "match")
		if got[i].RuleID != rule || got[i].Severity != sev || got[i].Match != match {
			return failf("finding %d: %s/%s %q, oracle %s/%s %q", i, got[i].RuleID, got[i].Severity, got[i].Match, rule, sev, match)
		}
	}
	out, changed := scan.Neutralize(s)
	if wc, ok := get(c, "changed").(bool); ok && wc != changed {
		return failf("changed = %v, oracle %v", changed, wc)
	}
	switch wn := get(c, "neutralized").(type) {
	case string:
		if wn == "<<unchanged>>" {
			if out != s {
				return failf("neutralised text differs from the unchanged input")
			}
		} else if out != wn {
			return failf("neutralised %q, oracle %q", out, wn)
		}
	case nil:
		if n, ok := floatOf(get(c, "neutralized_len")); ok && int(n) != utf8.RuneCountInString(out) {
			return failf("neutralised length %d, oracle %v", utf8.RuneCountInString(out), n)
		}
		if h, ok := str(c, "neutralized_sha256"); ok && sha(out) != h {
			return failf("neutralised sha256 %s, oracle %s", sha(out), h)
		}
	}
	if again, ch := scan.Neutralize(out); ch || again != out {
		return failf("neutralisation is not idempotent")
	}
	return pass()
}

// warningsCase runs with_security_warnings on the payload and compares the whole result.
func warningsCase(e *env, c *jsonv.Object) outcome {
	payload, ok := jsonv.Clone(get(c, "payload")).(*jsonv.Object)
	if !ok {
		return failf("payload is not an object")
	}
	var fields []string
	for _, f := range asList(get(c, "fields")) {
		s, _ := f.(string)
		fields = append(fields, s)
	}
	_, got := scan.WithSecurityWarnings(payload, fields)
	if want := get(c, "expected"); !jsonv.Equal(got, want) {
		return failf("result %s, oracle %s", show(got), show(want))
	}
	return pass()
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
