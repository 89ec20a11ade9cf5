package fleet

import (
	"encoding/hex"
	"strings"
)

// brokerToken is a broker key as a bucket key token: a key of [a-z0-9_-] as it is, any other
// (broker keys may hold dots, spaces or any letter) as "=" and its hex.
func brokerToken(key string) string {
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "=" + hex.EncodeToString([]byte(key))
		}
	}
	return key
}

// brokerOfToken reverses brokerToken.
func brokerOfToken(tok string) (string, bool) {
	h, enc := strings.CutPrefix(tok, "=")
	if !enc {
		return tok, tok != ""
	}
	b, err := hex.DecodeString(h)
	return string(b), err == nil && len(b) > 0
}
