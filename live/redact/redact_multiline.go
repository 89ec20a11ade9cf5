package redact

import "strings"

// Redaction passes for credentials that span more than one token or line, which the
// reference's one-token rules leave half shown: the credential after an Authorization
// scheme ("Authorization: Basic dXNlcjpwYXNz" kept its base64 user:password), a PEM private
// key block, and a quoted env-style secret that runs over several lines.

// redactPEMKeys replaces the body of every "-----BEGIN … PRIVATE KEY-----" block up to its
// END line (or the end of the text when it has none).
func redactPEMKeys(s string) string {
	const begin, end, tail = "-----BEGIN ", "-----END ", "PRIVATE KEY-----"
	var b strings.Builder
	last := 0
	for from := 0; ; {
		k := strings.Index(s[from:], begin)
		if k < 0 {
			break
		}
		k += from
		h := strings.Index(s[k:], tail)
		if h < 0 || strings.ContainsAny(s[k:k+h], "\n\"") {
			from = k + len(begin)
			continue
		}
		body := k + h + len(tail)
		stop := len(s)
		if e := strings.Index(s[body:], end); e >= 0 {
			stop = body + e
		}
		if strings.TrimSpace(strings.ReplaceAll(s[body:stop], `\n`, "")) == Redacted {
			from = stop
			continue
		}
		b.WriteString(s[last:body])
		b.WriteString(Redacted)
		last, from = stop, stop
		if stop == len(s) {
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactAuthCredentials redacts the credential that follows an Authorization header's scheme
// once the scheme itself was redacted ("Authorization: [redacted] dXNl…" → "… [redacted]
// [redacted]"), and the credential after a scheme left in clear (Basic, Bearer, Token).
func redactAuthCredentials(s string) string {
	lower := strings.ToLower(s)
	var b strings.Builder
	last := 0
	for from := 0; ; {
		k := strings.Index(lower[from:], "authorization")
		if k < 0 {
			break
		}
		k += from
		from = k + len("authorization")
		j := from
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			continue
		}
		j++
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '"' || s[j] == '\'') {
			j++
		}
		scheme := j
		for j < len(s) && !isSpaceByte(s[j]) && s[j] != '"' && s[j] != '\'' {
			j++
		}
		word := s[scheme:j]
		switch strings.ToLower(word) {
		case strings.ToLower(Redacted), "basic", "bearer", "token":
		default:
			continue
		}
		if j >= len(s) || (s[j] != ' ' && s[j] != '\t') {
			continue
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		cred := j
		for j < len(s) && !isSpaceByte(s[j]) && strings.IndexByte(`"',;`, s[j]) < 0 {
			j++
		}
		if j == cred || s[cred:j] == Redacted {
			continue
		}
		b.WriteString(s[last:cred])
		b.WriteString(Redacted)
		last, from = j, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
