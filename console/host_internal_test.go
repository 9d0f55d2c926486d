package console

import "testing"

// TestAPIHost: the console stays off the API's host names, in any spelling, and on others.
func TestAPIHost(t *testing.T) {
	for _, tc := range []struct {
		host, domain string
		want         bool
	}{
		{"demo.api-us.localhost", "localhost", true},
		{"demo.api-us.localhost:8080", "localhost", true},
		{"DEMO.API-EU.LOCALHOST.", "localhost", true},
		{"demo.apiclient-in.chat.example.com:443", "chat.example.com", true},
		{"a.b.api-us.chat.example.com", "chat.example.com", true},
		{"127.0.0.1:8080", "localhost", false},
		{"localhost", "localhost", false},
		{"[::1]:8080", "localhost", false},
		{"console.chat.example.com", "chat.example.com", false},
		{"chat.example.com", "chat.example.com", false},
		{"api-us.chat.example.com", "chat.example.com", false}, // no app label: not an API host
		{"demo.api-us.other.example", "chat.example.com", false},
		{"", "localhost", false},
	} {
		if got := apiHost(tc.host, tc.domain); got != tc.want {
			t.Errorf("apiHost(%q, %q) = %v, want %v", tc.host, tc.domain, got, tc.want)
		}
	}
}

func FuzzAPIHost(f *testing.F) {
	for _, h := range []string{"demo.api-us.localhost:8080", "127.0.0.1", "", ".", ".localhost", "x.api-.localhost"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, host string) {
		apiHost(host, "localhost") // must not panic
	})
}
