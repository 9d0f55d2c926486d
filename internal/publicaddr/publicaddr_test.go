package publicaddr

import "testing"

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
	} {
		if got := PrivateHost(tc.host); got != tc.want {
			t.Errorf("PrivateHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}
