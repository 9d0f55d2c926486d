// Package publicaddr says which addresses natter posts to on an app's behalf: public
// unicast ones only, unless the operator allows the others. Webhooks and custom notification
// providers share the rule, and chat checks URLs with it when they are saved.
package publicaddr

import (
	"net/netip"
	"strings"
)

// Private reports whether ip is loopback, private, link-local, unspecified, multicast or
// otherwise not a public unicast address.
func Private(ip netip.Addr) bool {
	ip = ip.Unmap()
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
// localhost name. Other names are checked when they are dialled, after resolution.
func PrivateHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return false
	}
	return Private(ip)
}

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
