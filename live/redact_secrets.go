package live

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Cockpit's redaction on top of the reference's RedactText (whose behaviour the conformance
// vectors pin): environment-style credential assignments (ALPACA_API_SECRET=…, *_KEY=…,
// *_TOKEN=…), the user-info of URLs, and the values of the secrets this process was
// configured with, wherever they appear. RedactSecrets applies them, so the audit store,
// the mirror, the exports, the log and the console all get them.

// MinSecretLen is the shortest value RegisterSecret scrubs: a shorter one would blank out
// ordinary words.
const MinSecretLen = 8

var secrets struct {
	mu     sync.RWMutex
	values []string // longest first
}

// RegisterSecret makes RedactSecrets scrub v wherever it appears; values shorter than
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
	return s
}

// envAssign is NAME=value (or NAME: value, optionally quoted name) for a credential-named
// variable that the reference's word-bounded names miss: ALPACA_API_SECRET, MY_KEY, GH_TOKEN.
var envAssign = regexp.MustCompile(`(?i)\b([A-Za-z0-9_]*(?:_SECRET[A-Za-z0-9_]*|_KEY|_TOKEN|_PASSWORD|_PASSWD|_PASSPHRASE))(["']?)(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;{}\[\]()"']+)`)

// urlUserinfo is scheme://userinfo@ (the last @ before the path ends the user-info).
var urlUserinfo = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9+.\-]*://)([^\s/?#\[\]]+)@`)

func redactEnvAssignments(s string) string {
	if !strings.ContainsAny(s, "=:") {
		return s
	}
	return envAssign.ReplaceAllStringFunc(s, func(m string) string {
		sub := envAssign.FindStringSubmatch(m)
		value := sub[4]
		quote := ""
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') {
			quote = value[:1]
		}
		if strings.Trim(value, `"'`) == Redacted {
			return m
		}
		return sub[1] + sub[2] + sub[3] + quote + Redacted + quote
	})
}

func redactURLUserinfo(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlUserinfo.ReplaceAllStringFunc(s, func(m string) string {
		sub := urlUserinfo.FindStringSubmatch(m)
		if user, _, ok := strings.Cut(sub[2], ":"); ok {
			return sub[1] + user + ":" + Redacted + "@"
		}
		return sub[1] + Redacted + "@"
	})
}
