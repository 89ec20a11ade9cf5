package live

import (
	"crypto/rand"
	"encoding/hex"
)

// IDGen makes ids of the form <prefix>_<32 hex>.
type IDGen func(prefix string) string

// RandomID returns <prefix>_<32 random hex digits>.
func RandomID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}
