package main

import (
	"errors"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

// auditRedactionCase redacts a broker request the way the audit does before any write.
func auditRedactionCase(e *env, c *jsonv.Object) outcome {
	if c.Has("expected_key_order") {
		return recordShapeCase(e, c)
	}
	req, ok := c.Get("broker_request")
	if !ok {
		return failf("case has no broker_request")
	}
	got := redact.Payload(req, redact.SinkArguments)
	if want := get(c, "expected_broker_request"); !jsonv.Equal(got, want) {
		return failf("redacted %s, oracle %s", show(got), show(want))
	}
	return pass()
}

// caseInput returns a case's input: "input", or "input_spec" parts concatenated.
func caseInput(c *jsonv.Object) (any, bool) {
	if v, ok := c.Get("input"); ok {
		return v, true
	}
	spec, ok := get(c, "input_spec").([]any)
	if !ok {
		return nil, false
	}
	var b strings.Builder
	for _, raw := range spec {
		part := obj(raw)
		text, _ := str(part, "text")
		n, _ := floatOf(get(part, "repeat"))
		if n == 0 {
			n = 1
		}
		b.WriteString(strings.Repeat(text, int(n)))
	}
	return b.String(), true
}

func redactTextCase(e *env, c *jsonv.Object) outcome {
	in, _ := caseInput(c)
	s, ok := in.(string)
	if !ok {
		return failf("input is %s", jsonv.TypeName(in))
	}
	want, _ := str(c, "expected")
	got := redact.Text(s)
	if got != want {
		return failf("redacted %q, oracle %q", got, want)
	}
	if idem, _ := get(c, "idempotent").(bool); idem {
		if again := redact.Text(got); again != got {
			return failf("not idempotent: %q → %q", got, again)
		}
	}
	return pass()
}

func redactPayloadCase(e *env, c *jsonv.Object) outcome {
	in, _ := caseInput(c)
	sink, _ := str(c, "sink")
	got := redact.Payload(in, redact.Sink(sink))
	if want := get(c, "expected"); !jsonv.Equal(got, want) {
		return failf("redacted %s, oracle %s", show(got), show(want))
	}
	if !jsonv.Equal(in, jsonv.Clone(in)) {
		return failf("input was modified")
	}
	return pass()
}

// redactToolResultCase compares parsed JSON when the oracle's output is JSON, else the text.
func redactToolResultCase(e *env, c *jsonv.Object) outcome {
	in, _ := caseInput(c)
	s, _ := in.(string)
	got, err := redact.ToolResult(s)
	if _, wantErr := c.Get("expected_exception"); wantErr {
		if !errors.Is(err, redact.ErrTooDeep) {
			return failf("no error, oracle raised %s", show(get(c, "expected_exception")))
		}
		return pass()
	}
	if err != nil {
		return failf("error %v", err)
	}
	want, _ := str(c, "expected")
	wantDoc, err1 := jsonv.ParseString(want, jsonv.Options{NonFinite: true})
	gotDoc, err2 := jsonv.ParseString(got, jsonv.Options{NonFinite: true})
	if err1 == nil {
		if err2 != nil || !jsonv.Equal(wantDoc, gotDoc) {
			return failf("redacted %q, oracle %q", got, want)
		}
		return pass()
	}
	if got != want {
		return failf("redacted %q, oracle %q", got, want)
	}
	return pass()
}

func redactKeyCase(e *env, c *jsonv.Object) outcome {
	key, _ := str(c, "key")
	for _, sink := range []string{"arguments", "result", "unknown_sink"} {
		want, ok := get(c, sink).(bool)
		if !ok {
			continue
		}
		if got := redact.IsSensitiveKey(key, redact.Sink(sink)); got != want {
			return failf("%s sink: sensitive=%v, oracle %v", sink, got, want)
		}
	}
	return pass()
}
