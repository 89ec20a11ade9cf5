package fleet

import (
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"cockpit/internal/tokenfile"
)

// TokenFile is the embedded server's client token, under the runtime root of `fleet serve`.
const TokenFile = "fleet.token"

// EnsureToken returns the token in dir/fleet.token, creating it (0600, 32 random bytes in hex)
// when missing.
func EnsureToken(dir string) (string, error) { return tokenfile.Ensure(filepath.Join(dir, TokenFile)) }

// ReadToken reads dir/fleet.token (fs.ErrNotExist when there is none). A file readable by
// group or others, or a short token, is refused.
func ReadToken(dir string) (string, error) { return tokenfile.Read(filepath.Join(dir, TokenFile)) }

// LoopbackURL reports whether every server of a (comma-separated) fleet url is on loopback:
// the embedded server of this machine, whose token file a root may hold.
func LoopbackURL(u string) bool {
	seen := false
	for _, s := range strings.Split(u, ",") {
		p, err := url.Parse(strings.TrimSpace(s))
		if err != nil || p.Hostname() == "" {
			return false
		}
		ip := net.ParseIP(p.Hostname())
		if p.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
		seen = true
	}
	return seen
}
