package httpapi

import "testing"

// TestClientHostApp: the official SDK sends its authToken requests to the client host,
// <appId>.apiclient-<region>.<domain>, which names the app as the admin host does.
func TestClientHostApp(t *testing.T) {
	for _, tc := range []struct {
		host, app, region string
		ok                bool
	}{
		{"demo.apiclient-us.localhost:8443", "demo", "us", true},
		{"Demo.APICLIENT-IN.localhost.", "demo", "in", true},
		{"apiclient-us.localhost", "", "", false},
		{"demo.apiclient-.localhost", "", "", false},
		{"demo.apiclients-us.localhost", "", "", false},
		{"demo.apiclient-us.example.com", "", "", false},
	} {
		app, region, ok := hostApp(tc.host, "localhost")
		if app != tc.app || string(region) != tc.region || ok != tc.ok {
			t.Errorf("%s: got %q %q %v", tc.host, app, region, ok)
		}
	}
}
