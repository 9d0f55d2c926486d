package publicaddr

import (
	"net/netip"
	"testing"
)

func TestPrivateHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"api.localhost.", true},
		{"127.0.0.1", true},
		{"10.1.2.3", true},
		{"169.254.169.254", true},
		{"100.64.0.1", true},
		{"[::1]", true},
		{"[fe80::1]", true},
		{"::ffff:192.168.0.1", true},
		{"0.0.0.0", true},
		{"8.8.8.8", false},
		{"[2001:4860:4860::8888]", false},
		{"example.com", false},

		// IPv4-compatible IPv6 (::a.b.c.d), the whole deprecated ::/96 range.
		{"[::127.0.0.1]", true},
		{"::127.0.0.1", true},
		{"[::7f00:1]", true},
		{"[::10.0.0.1]", true},
		{"[::169.254.169.254]", true},
		{"[::8.8.8.8]", true},
		{"[::]", true},
		{"[::ffff:127.0.0.1]", true},
		{"[::ffff:7f00:1]", true},
		{"[::ffff:8.8.8.8]", false},
		// 6to4 carrying a private address, and one carrying a public one.
		{"[2002:7f00:1::]", true},
		{"[2002:a00:1::1]", true},
		{"[2002:808:808::1]", false},
		{"[64:ff9b::127.0.0.1]", true},
		{"[fe80::1%25eth0]", true},

		// The IPv4 spellings inet_aton accepts.
		{"127.1", true},
		{"127.0.1", true},
		{"0x7f000001", true},
		{"0X7F000001", true},
		{"2130706433", true},
		{"0177.0.0.1", true},
		{"0177.1", true},
		{"0x7f.0.0.1", true},
		{"0x7f.1", true},
		{"017700000001", true},
		{"127.0.0.1.", true},
		{"0", true},
		{"10.1", true},
		{"0xa9fea9fe", true},       // 169.254.169.254
		{"3232235521", true},       // 192.168.0.1
		{"0xc0.0xa8.0.1", true},    // 192.168.0.1
		{"134744072", false},       // 8.8.8.8
		{"0x08080808", false},      // 8.8.8.8
		{"010.010.010.010", false}, // 8.8.8.8, octal
		{"4294967296", false},      // too big: a name, not an address
		{"256.0.0.1", false},       // not an address
		{"1.2.3.4.5", false},       // not an address
		{"127.0.0.1x", false},      // a name
		{"08.0.0.1", false},        // 8 is not octal: a name
		{"1.2.3.-4", false},        // a name
		{"127.0.0.1.example.com", false},
	} {
		if got := PrivateHost(tc.host); got != tc.want {
			t.Errorf("PrivateHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want string
	}{
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"1.2.65535", "1.2.255.255"},
		{"1.16777215", "1.255.255.255"},
		{"[::127.0.0.1]", "::7f00:1"},
		{"example.com", ""},
		{"1.2.65536", ""},
		{"1.256.0", ""},
	} {
		ip, ok := ParseHost(tc.host)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != tc.want {
			t.Errorf("ParseHost(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

// The dialer sees resolved addresses, never the URL's spelling: Private must refuse the
// IPv4-compatible form itself.
func TestPrivate(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"::7f00:1", true},
		{"::a00:1", true},
		{"::808:808", true},
		{"::ffff:7f00:1", true},
		{"2002:7f00:1::", true},
		{"2002:808:808::", false},
		{"8.8.8.8", false},
		{"2001:4860:4860::8888", false},
	} {
		if got := Private(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Private(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}
