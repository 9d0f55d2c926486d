// Package publicaddr says which addresses natter posts to on an app's behalf: public
// unicast ones only, unless the operator allows the others. Webhooks and custom notification
// providers share the rule, and chat checks URLs with it when they are saved.
package publicaddr

import (
	"net/netip"
	"strconv"
	"strings"
)

// Private reports whether ip is loopback, private, link-local, unspecified, multicast or
// otherwise not a public unicast address. An IPv4 address carried in IPv6 (mapped,
// ::ffff:a.b.c.d; the deprecated IPv4-compatible form, ::a.b.c.d; 6to4, 2002:aabb:ccdd::)
// is judged by the IPv4 address it carries, so [::127.0.0.1] is loopback.
func Private(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case ipv4Compatible.Contains(ip):
			// ::/96 holds only :: and ::1 besides IPv4-compatible addresses, which RFC 4291
			// deprecated; none is a public unicast address, whatever it carries.
			return true
		case sixToFour.Contains(ip) && Private(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})):
			return true
		}
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// PrivateHost reports whether a URL's host is a private address (as Private says) or a
// localhost name. Other names are checked when they are dialled, after resolution. A host
// that a C resolver (inet_aton) would read as an IPv4 address — 127.1, 0x7f000001,
// 2130706433, 0177.0.0.1 — is judged as that address, since that is where such a resolver
// would connect.
func PrivateHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if ip, ok := ParseHost(h); ok {
		return Private(ip)
	}
	return false
}

// ParseHost reads a URL host as an IP address: an IPv6 literal (bracketed or not, a zone
// allowed), a dotted-decimal IPv4 address, or one of the other IPv4 spellings inet_aton
// accepts (one to four parts, each decimal, octal with a leading 0, or hex with 0x). ok is
// false for a name.
func ParseHost(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	return parseInetAton(h)
}

// parseInetAton reads s as inet_aton does: a.b.c.d, a.b.c (c 16 bits), a.b (b 24 bits) or a
// (32 bits), each part decimal, octal (leading 0) or hex (0x).
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseAtonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	for _, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n := vals[last]
	for i, v := range vals[:last] {
		n |= v << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseAtonPart(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
		if p == "" { // "0x" alone is 0 to inet_aton
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	for _, c := range p { // no signs, spaces or underscores, which ParseUint's callers might allow
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// blockedPrefixes are further ranges that are not public: carrier-grade NAT, "this network",
// benchmarking, and IPv4-in-IPv6 translation prefixes that could reach them.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}
