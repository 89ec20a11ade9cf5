package redact

import (
	"sort"
	"strings"
	"sync"
)

// Cockpit's redaction on top of the reference's Text (whose behaviour the conformance
// vectors pin): environment-style credential assignments (ALPACA_API_SECRET=…, *_KEY=…,
// *_TOKEN=…), the user-info of URLs, and the values of the secrets this process was
// configured with, wherever they appear. Secrets applies them, so the audit store,
// the mirror, the exports, the log and the console all get them.

// MinSecretLen is the shortest value RegisterSecret scrubs: a shorter one would blank out
// ordinary words.
const MinSecretLen = 8

var secrets struct {
	mu     sync.RWMutex
	values []string // longest first
}

// RegisterSecret makes Secrets scrub v wherever it appears; values shorter than
// MinSecretLen (after trimming) are ignored. The returned func forgets it again (tests).
func RegisterSecret(v string) (forget func()) {
	v = strings.TrimSpace(v)
	if len(v) < MinSecretLen {
		return func() {}
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	for _, x := range secrets.values {
		if x == v {
			return func() {}
		}
	}
	secrets.values = append(secrets.values, v)
	sort.SliceStable(secrets.values, func(i, j int) bool { return len(secrets.values[i]) > len(secrets.values[j]) })
	return func() {
		secrets.mu.Lock()
		defer secrets.mu.Unlock()
		for i, x := range secrets.values {
			if x == v {
				secrets.values = append(secrets.values[:i], secrets.values[i+1:]...)
				return
			}
		}
	}
}

// IsSecretEnvName reports whether an environment variable's name says it holds a credential:
// *_SECRET*, *_KEY, *_TOKEN, *PASSWORD*, *PASSPHRASE* (any case).
func IsSecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	return strings.Contains(n, "SECRET") || strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "_TOKEN") ||
		strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSPHRASE") || n == "APCA_API_KEY_ID"
}

// RegisterSecretsFromEnv registers the values of the credential-named variables in environ
// ("K=V" entries, as os.Environ gives them); the returned func forgets them (tests).
func RegisterSecretsFromEnv(environ []string) (forget func()) {
	var forgets []func()
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && IsSecretEnvName(k) {
			forgets = append(forgets, RegisterSecret(v))
		}
	}
	return func() {
		for _, f := range forgets {
			f()
		}
	}
}

func scrubValues(s string) string {
	secrets.mu.RLock()
	defer secrets.mu.RUnlock()
	for _, v := range secrets.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return scrubEncoded(s, secrets.values)
}

// redactEnvAssignments redacts the value of NAME=value (or NAME: value, the name possibly
// quoted) when NAME looks like a credential the reference's word-bounded names miss:
// ALPACA_API_SECRET, *_KEY, *_TOKEN, *_PASSWORD (any case). The value is a quoted string
// or a run up to whitespace or one of ,;{}[]()"'. A hand-written scan: one pass, no regexp.
func redactEnvAssignments(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		// Back over spaces, an optional closing quote, then the name.
		j := i
		for j > 0 && isSpaceByte(s[j-1]) {
			j--
		}
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			j--
			if j > 0 && s[j-1] == '\\' { // a JSON-escaped quote: \"NAME\": \"value\"
				j--
			}
		}
		end := j
		for j > 0 && isNameByte(s[j-1]) {
			j--
		}
		if j == end || !secretName(s[j:end]) {
			continue
		}
		// Forward over spaces to the value.
		v := i + 1
		for v < len(s) && isSpaceByte(s[v]) {
			v++
		}
		vend, quote, ok := envValue(s, v)
		if !ok || strings.Trim(s[v:vend], `"'`) == Redacted {
			continue
		}
		b.WriteString(s[last:v])
		b.WriteString(quote + Redacted + quote)
		last = vend
		i = vend - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// secretName: *_SECRET*, *_KEY, *_TOKEN, *_PASSWORD, *_PASSWD, *_PASSPHRASE, any case.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	if strings.Contains(n, "_SECRET") {
		return true
	}
	for _, suf := range []string{"_KEY", "_TOKEN", "_PASSWORD", "_PASSWD", "_PASSPHRASE"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// maxQuotedSecret bounds how far a quoted credential is looked for its closing quote.
const maxQuotedSecret = 16 << 10

// envValue is "[^"\n]*" | '[^'\n]*' | [^\s,;{}\[\]()"']+ at v: its end and its quote.
func envValue(s string, v int) (int, string, bool) {
	if v >= len(s) {
		return 0, "", false
	}
	if strings.HasPrefix(s[v:], `\"`) { // a JSON-escaped string inside a string
		if k := strings.Index(s[v+2:], `\"`); k >= 0 && !strings.ContainsRune(s[v+2:v+2+k], '\n') {
			return v + 2 + k + 2, `\"`, true
		}
		return 0, "", false
	}
	if c := s[v]; c == '"' || c == '\'' {
		// A quoted value may run over lines (a PEM key in an env file): to its closing
		// quote within maxQuotedSecret bytes, else to the end of its first line.
		if k := strings.IndexByte(s[v+1:min(len(s), v+1+maxQuotedSecret)], c); k >= 0 {
			return v + 1 + k + 1, string(c), true
		}
		j := v + 1
		for j < len(s) && s[j] != '\n' {
			j++
		}
		return j, "", j > v+1
	}
	j := v
	for j < len(s) && !isSpaceByte(s[j]) && strings.IndexByte(",;{}[]()\"'", s[j]) < 0 {
		j++
	}
	return j, "", j > v
}

// redactURLUserinfo redacts the user-info of scheme://user:password@host (the password) or
// scheme://token@host (all of it); the last @ before the path ends the user-info.
func redactURLUserinfo(s string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			break
		}
		k += from
		from = k + 3
		// The scheme: a letter, then letters, digits, + . - ; not inside a longer word.
		st := k
		for st > 0 && (isNameByte(s[st-1]) && s[st-1] != '_' || s[st-1] == '+' || s[st-1] == '.' || s[st-1] == '-') {
			st--
		}
		for st < k && !(s[st] >= 'a' && s[st] <= 'z' || s[st] >= 'A' && s[st] <= 'Z') {
			st++
		}
		if st == k || st > 0 && isNameByte(s[st-1]) {
			continue
		}
		// The authority's user-info: up to the last @ before whitespace, / ? # [ or ].
		at := -1
		j := k + 3
		for ; j < len(s) && !isSpaceByte(s[j]) && strings.IndexByte("/?#[]", s[j]) < 0; j++ {
			if s[j] == '@' {
				at = j
			}
		}
		if at <= k+3 {
			continue
		}
		info := s[k+3 : at]
		b.WriteString(s[last : k+3])
		if user, _, ok := strings.Cut(info, ":"); ok {
			b.WriteString(user + ":" + Redacted)
		} else {
			b.WriteString(Redacted)
		}
		last = at
		from = at
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
