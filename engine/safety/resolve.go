package safety

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// NumericHost parses a host the way glibc's getaddrinfo does before any DNS: an IPv6
// literal, or an IPv4 address in inet_aton's forms — one to four parts, each decimal, octal
// (leading 0) or hex (0x), the last part filling the remaining bytes: 127.1, 0x7f.0.0.1,
// 2130706433 and 017700000001 are all 127.0.0.1. A trailing dot is not numeric.
func NumericHost(host string) (netip.Addr, bool) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		return a, err == nil && a.Is6()
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var ip uint64
	n := len(vals)
	for i := 0; i < n-1; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		ip |= vals[i] << (24 - 8*i)
	}
	if rest := 8 * (4 - (n - 1)); vals[n-1] >= 1<<rest {
		return netip.Addr{}, false
	} else {
		ip |= vals[n-1]
	}
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// SystemResolver resolves like getaddrinfo: numeric forms first (so the dialled address is
// the one that was checked), "localhost" to loopback, then DNS.
type SystemResolver struct{ DNS *net.Resolver }

// Resolve implements Resolver.
func (r SystemResolver) Resolve(ctx context.Context, host string) ([]string, error) {
	if a, ok := NumericHost(host); ok {
		return []string{a.String()}, nil
	}
	if strings.EqualFold(host, "localhost") {
		return []string{"127.0.0.1", "::1"}, nil
	}
	dns := r.DNS
	if dns == nil {
		dns = net.DefaultResolver
	}
	ips, err := dns.LookupIPAddr(ctx, host)
	if err != nil {
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return nil, ErrNoSuchHost
		}
		return nil, ErrNoSuchHost
	}
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out, nil
}

// NormalizeHost is the MCP guard's _normalize_host: stripped, "[v6]:port" to v6, one colon
// means a port to drop, more colons (bare IPv6) kept whole, lower-cased.
func NormalizeHost(h string) string {
	h = strings.TrimSpace(h)
	switch {
	case strings.HasPrefix(h, "["):
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	case strings.Count(h, ":") == 1:
		h = h[:strings.IndexByte(h, ':')]
	}
	return strings.ToLower(h)
}

// ParseAllowedHosts is _parse_allowed_hosts: a comma list (wildcards only lower-cased), or
// 127.0.0.1, ::1 and localhost when empty.
func ParseAllowedHosts(list string) []string {
	var out []string
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case strings.HasPrefix(e, "*"):
			out = append(out, strings.ToLower(e))
		default:
			out = append(out, NormalizeHost(e))
		}
	}
	if len(out) == 0 {
		return []string{"127.0.0.1", "::1", "localhost"}
	}
	return out
}

// HostMatches is _host_matches: "*" matches anything, "*.d" matches d and its subdomains.
func HostMatches(host string, allowed []string) bool {
	for _, a := range allowed {
		switch {
		case a == "*":
			return true
		case strings.HasPrefix(a, "*."):
			d := a[2:]
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
		case host == a:
			return true
		}
	}
	return false
}

// OriginAllowed: a missing or empty Origin passes; one without a hostname ("null") does
// not; otherwise its hostname must match.
func OriginAllowed(origin *string, allowed []string) bool {
	if origin == nil || *origin == "" {
		return true
	}
	u, err := SplitURL(*origin)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "" {
		return false
	}
	return HostMatches(h, allowed)
}
