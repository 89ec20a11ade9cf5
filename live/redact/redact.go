package redact

import (
	"errors"
	"strings"
	"unsafe"

	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// Redacted replaces a secret.
const Redacted = "[redacted]"

// Sink says where redacted data goes. The result sink releases one key ("content") so that
// documents read by a tool stay readable in the record; any other sink is treated as arguments.
type Sink string

// Sinks.
const (
	SinkArguments Sink = "arguments"
	SinkResult    Sink = "result"
)

var sensitiveExact = []string{
	"api_key", "authorization", "content", "env", "headers", "passphrase", "password", "secret", "token",
	"account_number", "account_id", "account_no", "account_num", "brokerage_account_number",
	"brokerage_account_id", "account_url", "rhs_account_number", "ssn", "social_security_number",
	"tax_id", "taxpayer_id", "tin", "routing_number", "bank_account_number",
}

var sensitiveMarkers = []string{"api_key", "authorization", "password", "secret", "token"}

var (
	exactSet        = map[string]bool{}
	foldedExactSet  = map[string]bool{}
	foldedMarkerSet []string
)

func init() {
	for _, k := range sensitiveExact {
		exactSet[k] = true
		foldedExactSet[foldKey(k)] = true
	}
	for _, m := range sensitiveMarkers {
		foldedMarkerSet = append(foldedMarkerSet, foldKey(m))
	}
}

// foldKey keeps only the alphanumeric code points of s ("account-number" → "accountnumber").
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		if pystr.IsAlnum(r) {
			return r
		}
		return -1
	}, s)
}

// IsSensitiveKey reports whether a value stored under key must be redacted. The key is
// compared stripped and lower-cased, and again with everything but letters and digits removed,
// against an exact list and a list of markers it may contain. In the result sink a key that
// folds to "content" is released.
func IsSensitiveKey(key string, sink Sink) bool {
	normalized := pystr.Lower(pystr.Strip(key))
	folded := foldKey(normalized)
	if sink == SinkResult && folded == "content" {
		return false
	}
	if exactSet[normalized] || containsAny(normalized, sensitiveMarkers) {
		return true
	}
	return foldedExactSet[folded] || containsAny(folded, foldedMarkerSet)
}

func containsAny(s string, subs []string) bool {
	for _, m := range subs {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// Payload returns a redacted copy of a JSON value (jsonv form): values under sensitive
// keys become "[redacted]" whatever their type, every string is text-redacted, and key order
// is kept. The input is not modified.
func Payload(v any, sink Sink) any { return newWalker(sink, Text).walk(v) }

// ForStorage is Payload with Secrets on every string: what the audit trail,
// the mirror and the log store.
func ForStorage(v any) any { return newWalker(SinkArguments, Secrets).walk(v) }

// walkerCacheMax bounds the keys one walk remembers the sensitivity of.
const walkerCacheMax = 4096

// walker redacts one value; it remembers IsSensitiveKey per key, since payloads repeat
// their keys across list items.
type walker struct {
	sink      Sink
	text      func(string) string
	sensitive map[string]bool
}

func newWalker(sink Sink, text func(string) string) *walker {
	return &walker{sink: sink, text: text}
}

func (w *walker) isSensitive(key string) bool {
	if s, ok := w.sensitive[key]; ok {
		return s
	}
	s := IsSensitiveKey(key, w.sink)
	if w.sensitive == nil {
		w.sensitive = make(map[string]bool)
	}
	if len(w.sensitive) < walkerCacheMax {
		w.sensitive[key] = s
	}
	return s
}

func (w *walker) walk(v any) any {
	switch t := v.(type) {
	case *jsonv.Object:
		return jsonv.MapValues(t, func(m jsonv.Member) any {
			if w.isSensitive(m.Key) {
				return Redacted
			}
			return w.walk(m.Value)
		})
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = w.walk(e)
		}
		return out
	case string:
		return w.text(t)
	}
	return v
}

// toolResultMaxDepth is where ToolResult gives up on nesting, close to where Python's
// json.loads and the reference's recursive walk hit the interpreter's recursion limit.
const toolResultMaxDepth = 980

// ErrTooDeep reports a tool result nested too deeply to redact; callers must not store it.
var ErrTooDeep = errors.New("tool result is nested too deeply to redact")

// ToolResult redacts a tool's text result: JSON (Python dialect: NaN and Infinity
// allowed, last duplicate key wins) is walked in the result sink and re-encoded with Python's
// separators; anything else is text-redacted. Over-deep JSON is refused with ErrTooDeep.
func ToolResult(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	doc, err := jsonv.ParseString(s, jsonv.Options{NonFinite: true, MaxDepth: toolResultMaxDepth})
	if errors.Is(err, jsonv.ErrTooDeep) {
		return "", ErrTooDeep
	}
	if err != nil {
		return Text(s), nil
	}
	// The encoding is about as long as the input: one buffer of that size, not a doubling
	// series of them.
	out, err := jsonv.Append(make([]byte, 0, len(s)+len(s)/4), Payload(doc, SinkResult), jsonv.Python)
	if err != nil {
		return Text(s), nil
	}
	// out is never written again: hand its bytes over as the string, as strings.Builder does,
	// instead of copying a result as large as the input (a tenth of the call on a 1 MB one).
	return unsafe.String(unsafe.SliceData(out), len(out)), nil
}
