package redact

import (
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

var redactTextInputs = []string{"redact_log_text_1mb.txt", "redact_adv_mix_1mb.txt", "redact_adv_bearer_1mb.txt",
	"redact_adv_word_run_1mb.txt", "redact_adv_sk_nearmiss_1mb.txt"}

// TestRedactCorpusOutputs reproduces the reference's output hashes on its redaction corpus.
func TestRedactCorpusOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ref := benchcorpus.LoadReference(t)
	want := map[string]string{}
	for _, r := range ref.Redact {
		want[r.Input+"|"+r.Fn] = r.OutputSHA256
	}
	for _, name := range redactTextInputs {
		out := Text(string(benchcorpus.Read(t, name)))
		if got := benchcorpus.Hash([]byte(out)); got != want[name+"|redact_text"] {
			t.Errorf("%s: redact_text sha256 %s, reference %s", name, got, want[name+"|redact_text"])
		}
	}
	raw := benchcorpus.Read(t, "redact_nested_payload_1mb.json")
	doc, err := jsonv.Parse(raw, jsonv.Options{NonFinite: true})
	if err != nil {
		t.Fatal(err)
	}
	for sink, fn := range map[Sink]string{SinkArguments: "redact_payload[arguments]", SinkResult: "redact_payload[result]"} {
		out, err := jsonv.Marshal(Payload(doc, sink), jsonv.Python)
		if err != nil {
			t.Fatal(err)
		}
		if got := benchcorpus.Hash(out); got != want["redact_nested_payload_1mb.json|"+fn] {
			t.Errorf("%s: sha256 %s, reference %s", fn, got, want["redact_nested_payload_1mb.json|"+fn])
		}
	}
	out, err := ToolResult(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := benchcorpus.Hash([]byte(out)); got != want["redact_nested_payload_1mb.json|redact_tool_result(json text)"] {
		t.Errorf("redact_tool_result: sha256 %s", got)
	}
}

// BenchmarkRedactCorpus times the reference's redaction calls on its corpus (MB = 10^6 bytes).
func BenchmarkRedactCorpus(b *testing.B) {
	for _, name := range redactTextInputs {
		text := string(benchcorpus.Read(b, name))
		b.Run("text/"+strings.TrimSuffix(name, ".txt"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				Text(text)
			}
		})
	}
	raw := benchcorpus.Read(b, "redact_nested_payload_1mb.json")
	doc, err := jsonv.Parse(raw, jsonv.Options{NonFinite: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, sink := range []Sink{SinkArguments, SinkResult} {
		b.Run("payload/"+string(sink), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for i := 0; i < b.N; i++ {
				Payload(doc, sink)
			}
		})
	}
	b.Run("tool_result", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			ToolResult(string(raw))
		}
	})
}
