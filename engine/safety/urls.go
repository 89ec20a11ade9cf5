// Package safety holds the reference's checks for what an agent may reach: URL targets (the
// resolver-checked policy and the lexical one, with Python 3.11.7's address tables), the
// MCP host and origin guard, path containment with read, write and run roots, the shell
// guards, and internal-path redaction. Each is ported to the reference's exact behaviour,
// pinned by the conformance vectors; the tools add what the reference lacks (pinned dials,
// hop-by-hop redirect checks, sandboxes) on top.
package safety

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"cockpit/live/pystr"
)

// URL is a URL split the way Python 3.11.7's urllib.parse.urlsplit splits it.
type URL struct {
	Scheme, Netloc, Path, Query, Fragment string
}

// nfkcPunct are the code points whose NFKC form contains / ? # @ or : (Unicode 14), which
// urlsplit refuses in a netloc.
var nfkcPunct = map[rune]bool{0x2047: true, 0x2048: true, 0x2049: true, 0x2100: true, 0x2101: true, 0x2105: true,
	0x2106: true, 0x2a74: true, 0xfe13: true, 0xfe16: true, 0xfe55: true, 0xfe56: true, 0xfe5f: true, 0xfe6b: true,
	0xff03: true, 0xff0f: true, 0xff1a: true, 0xff1f: true, 0xff20: true}

// SplitURL is urlsplit: leading C0 controls and spaces stripped, tab, CR and LF removed, the
// scheme lower-cased when it is one, the netloc after "//", and Python's ValueErrors for an
// unbalanced bracket, a bad bracketed host, or NFKC punctuation in the netloc.
func SplitURL(raw string) (URL, error) {
	var u URL
	raw = strings.TrimLeftFunc(raw, func(r rune) bool { return r <= ' ' })
	raw = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(raw)
	if i := strings.IndexByte(raw, ':'); i > 0 && isASCIIAlpha(raw[0]) {
		ok := true
		for _, c := range raw[:i] {
			if !(c < 0x80 && (isASCIIAlpha(byte(c)) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
				ok = false
				break
			}
		}
		if ok {
			u.Scheme, raw = strings.ToLower(raw[:i]), raw[i+1:]
		}
	}
	if strings.HasPrefix(raw, "//") {
		end := len(raw)
		for _, c := range "/?#" {
			if j := strings.IndexRune(raw[2:], c); j >= 0 && j+2 < end {
				end = j + 2
			}
		}
		u.Netloc, raw = raw[2:end], raw[end:]
		open, cls := strings.Contains(u.Netloc, "["), strings.Contains(u.Netloc, "]")
		if open != cls {
			return u, errors.New("Invalid IPv6 URL")
		}
		if open {
			if err := checkBracketed(u.Netloc); err != nil {
				return u, err
			}
		}
	}
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw, u.Fragment = raw[:i], raw[i+1:]
	}
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw, u.Query = raw[:i], raw[i+1:]
	}
	u.Path = raw
	for _, r := range u.Netloc {
		if nfkcPunct[r] {
			return u, fmt.Errorf("netloc %s contains invalid characters under NFKC normalization", pystr.Repr(u.Netloc))
		}
	}
	return u, nil
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checkBracketed is urllib's _check_bracketed_netloc: nothing before the bracket, only a
// port after it, and the bracketed host a valid IPv6 address (or IPvFuture).
func checkBracketed(netloc string) error {
	hostport := netloc[strings.LastIndexByte(netloc, '@')+1:]
	before, bracketed, found := strings.Cut(hostport, "[")
	var host string
	if found {
		if before != "" {
			return errors.New("Invalid IPv6 URL")
		}
		h, port, _ := strings.Cut(bracketed, "]")
		if port != "" && !strings.HasPrefix(port, ":") {
			return errors.New("Invalid IPv6 URL")
		}
		host = h
	} else {
		host, _, _ = strings.Cut(hostport, ":")
	}
	if strings.HasPrefix(host, "v") {
		rest, tail, ok := strings.Cut(host[1:], ".")
		if !ok || rest == "" || tail == "" || strings.Trim(rest, "0123456789abcdefABCDEF") != "" {
			return errors.New("IPvFuture address is invalid")
		}
		return nil
	}
	a, err := ParseIP(host)
	if err != nil {
		return err
	}
	if a.Is4() {
		return errors.New("An IPv4 address cannot be in brackets")
	}
	return nil
}

// Hostname is urllib's .hostname: the host part, lower-cased (not its %zone); "" when none.
func (u URL) Hostname() string {
	info := u.Netloc[strings.LastIndexByte(u.Netloc, '@')+1:]
	var host string
	if _, b, ok := strings.Cut(info, "["); ok {
		host, _, _ = strings.Cut(b, "]")
	} else {
		host, _, _ = strings.Cut(info, ":")
	}
	h, zone, has := strings.Cut(host, "%")
	if has {
		return pystr.Lower(h) + "%" + zone
	}
	return pystr.Lower(h)
}

// Userinfo is urllib's (username, password); the password is "" with ok false when absent.
func (u URL) Userinfo() (user string, hasUser bool, pass string, hasPass bool) {
	i := strings.LastIndexByte(u.Netloc, '@')
	if i < 0 {
		return "", false, "", false
	}
	user, pass, hasPass = strings.Cut(u.Netloc[:i], ":")
	return user, true, pass, hasPass
}

// ParseIP parses an address the way Python's ipaddress.ip_address does: dotted-quad IPv4
// (no leading zeros) or IPv6 with an optional %scope.
func ParseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Is4In6() && strings.Contains(s, "%") {
		return netip.Addr{}, fmt.Errorf("%s does not appear to be an IPv4 or IPv6 address", pystr.Repr(s))
	}
	return a, nil
}

// IPClass is Python 3.11.7's ipaddress flags for one address.
type IPClass struct {
	Global, Private, Loopback, LinkLocal, Multicast, Reserved, Unspecified bool
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

var (
	v4Private = prefixes("0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/29",
		"192.0.0.170/31", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"240.0.0.0/4", "255.255.255.255/32")
	v4Shared  = netip.MustParsePrefix("100.64.0.0/10")
	v6Private = prefixes("::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48", "2001:db8::/32",
		"2001:10::/28", "fc00::/7", "fe80::/10")
	v6Reserved = prefixes("::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3",
		"8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5", "f800::/6", "fe00::/9")
)

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Classify returns the ipaddress flags of a (Python 3.11.7 tables).
func Classify(a netip.Addr) IPClass {
	a = a.WithZone("")
	if a.Is4() {
		c := IPClass{Private: inAny(a, v4Private), Loopback: netip.MustParsePrefix("127.0.0.0/8").Contains(a),
			LinkLocal: netip.MustParsePrefix("169.254.0.0/16").Contains(a), Multicast: netip.MustParsePrefix("224.0.0.0/4").Contains(a),
			Reserved: netip.MustParsePrefix("240.0.0.0/4").Contains(a), Unspecified: a == netip.IPv4Unspecified()}
		c.Global = !v4Shared.Contains(a) && !c.Private
		return c
	}
	c := IPClass{Loopback: a == netip.IPv6Loopback(), LinkLocal: netip.MustParsePrefix("fe80::/10").Contains(a),
		Multicast: netip.MustParsePrefix("ff00::/8").Contains(a), Reserved: inAny(a, v6Reserved), Unspecified: a == netip.IPv6Unspecified()}
	if a.Is4In6() {
		c.Private = inAny(a.Unmap(), v4Private)
	} else {
		c.Private = inAny(a, v6Private)
	}
	c.Global = !c.Private
	return c
}

// PyString renders an address as Python's str(): dotted IPv4, or IPv6 compressed with the
// first longest run of two or more zero groups as "::" and no special form for mapped v4.
func PyString(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	b := a.As16()
	var g [8]uint16
	for i := range g {
		g[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	best, bestLen, cur, curLen := -1, 0, -1, 0
	for i, v := range g {
		if v == 0 {
			if cur < 0 {
				cur, curLen = i, 0
			}
			curLen++
			if curLen > bestLen {
				best, bestLen = cur, curLen
			}
		} else {
			cur, curLen = -1, 0
		}
	}
	hex := func(v uint16) string { return strconv.FormatUint(uint64(v), 16) }
	if bestLen < 2 {
		parts := make([]string, 8)
		for i, v := range g {
			parts[i] = hex(v)
		}
		return strings.Join(parts, ":")
	}
	var left, right []string
	for _, v := range g[:best] {
		left = append(left, hex(v))
	}
	for _, v := range g[best+bestLen:] {
		right = append(right, hex(v))
	}
	s := strings.Join(left, ":") + "::" + strings.Join(right, ":")
	if z := a.Zone(); z != "" {
		s += "%" + z
	}
	return s
}

// Resolver returns the addresses of a host as strings (getaddrinfo); ErrNoSuchHost when the
// name does not resolve.
type Resolver interface {
	Resolve(ctx context.Context, host string) ([]string, error)
}

// ErrNoSuchHost reports a name that does not resolve (gaierror).
var ErrNoSuchHost = errors.New("no such host")

// ValidateURLTarget is the reference's validate_url_target: http or https, a netloc and a
// hostname, every resolved address global and not multicast — or, with allowLoopback, every
// address loopback. It reproduces the reference's gaps (W2: an empty or unparseable
// resolution passes; any port; credentials allowed); the web tool adds what it lacks.
func ValidateURLTarget(ctx context.Context, raw string, allowLoopback bool, r Resolver) (bool, string) {
	u, err := SplitURL(raw)
	if err != nil {
		return false, err.Error()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		s := u.Scheme
		if s == "" {
			s = "none"
		}
		return false, fmt.Sprintf("Only http/https allowed, got '%s'", s)
	}
	if u.Netloc == "" {
		return false, "Missing domain"
	}
	host := u.Hostname()
	if host == "" {
		return false, "Missing hostname"
	}
	addrs, err := r.Resolve(ctx, host)
	if err != nil {
		return false, "Cannot resolve hostname: " + host
	}
	var parsed []netip.Addr
	for _, s := range addrs {
		if a, err := ParseIP(s); err == nil {
			parsed = append(parsed, a)
		}
	}
	if allowLoopback && len(parsed) > 0 {
		all := true
		for _, a := range parsed {
			all = all && Classify(a).Loopback
		}
		if all {
			return true, ""
		}
	}
	for _, a := range parsed {
		if c := Classify(a); !c.Global || c.Multicast {
			return false, fmt.Sprintf("Blocked: %s resolves to private/internal address %s", host, PyString(a))
		}
	}
	return true, ""
}

// WebReaderAllowed is the reference web reader's lexical _url_allowed: no DNS; denies
// userinfo, localhost, *.localhost and *.local, and IP literals that are not public. Any
// hostname passes (W3) — the web tool checks the resolved address at dial time as well.
func WebReaderAllowed(raw string) bool {
	u, err := SplitURL(pystr.Strip(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "" {
		return false
	}
	if user, _, pass, _ := u.Userinfo(); user != "" || pass != "" {
		return false
	}
	h := pystr.Lower(strings.TrimRight(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") {
		return false
	}
	h, _, _ = strings.Cut(h, "%")
	a, err := ParseIP(h)
	if err != nil {
		return true
	}
	c := Classify(a)
	return !(c.Private || c.Loopback || c.LinkLocal || c.Multicast || c.Reserved || c.Unspecified || !c.Global)
}
