package modmatch

import "testing"

func TestContacts(t *testing.T) {
	tests := []struct {
		kind, text, want string // want "" for none
	}{
		// Emails, plain and obfuscated.
		{"email", "mail joe.smith@example.com now", "joe.smith@example.com"},
		{"email", "JOE@EXAMPLE.ORG", "JOE@EXAMPLE.ORG"},
		{"email", "joe @ example.co.uk", "joe @ example.co.uk"},
		{"email", "x+tag@sub.example.travel", "x+tag@sub.example.travel"},
		{"email", "joe at example dot com", "joe at example dot com"},
		{"email", "joe AT example DOT com", "joe AT example DOT com"},
		{"email", "joe(at)example.com", "joe(at)example.com"},
		{"email", "joe [at] example [dot] com", "joe [at] example [dot] com"},
		{"email", "joe{at}example(dot)net", "joe{at}example(dot)net"},
		{"email", "joe (@) example (.) io", "joe (@) example (.) io"},
		{"email", "joe.smith [at] mail [dot] example [dot] org", "joe.smith [at] mail [dot] example [dot] org"},
		{"email", "write to joe at gmail dot com.", "joe at gmail dot com"},
		{"email", "joe @ example dot com", "joe @ example dot com"},
		{"email", "tell that example dot com", ""},
		{"email", "joe(at)example", ""},
		{"email", "I'm at home. Call me", ""},
		{"email", "look at this", ""},
		{"email", "meet at 5.30", ""},
		{"email", "@bob hi", ""},
		{"email", "a@b", ""},
		{"email", "she is at work dot not", ""},
		// Phones.
		{"phone", "call +1 (555) 123-4567", "+1 (555) 123-4567"},
		{"phone", "call 555-123-4567 now", "555-123-4567"},
		{"phone", "555.123.4567", "555.123.4567"},
		{"phone", "(555) 123 4567", "(555) 123 4567"},
		{"phone", "tel 020 7946 0958", "020 7946 0958"},
		{"phone", "+44 20 7946 0958", "+44 20 7946 0958"},
		{"phone", "06 12 34 56 78", "06 12 34 56 78"},
		{"phone", "8 (916) 123-45-67", "8 (916) 123-45-67"},
		{"phone", "5551234567", "5551234567"},
		{"phone", "+4915112345678", "+4915112345678"},
		{"phone", "5 5 5 1 2 3 4", "5 5 5 1 2 3 4"},
		{"phone", "call me in 5 min", ""},
		{"phone", "on 2024-01-02", ""},
		{"phone", "on 02.01.2024", ""},
		{"phone", "on 2024-01-02 10:30", ""},
		{"phone", "on 1.2.2024 at 10", ""},
		{"phone", "from 1990-2024", ""},
		{"phone", "pi is 3.14159265", ""},
		{"phone", "host 192.168.100.200", ""},
		{"phone", "costs 1.000.000", ""},
		{"phone", "order 1234567", ""},
		{"phone", "12 apples and 34 pears", ""},
		{"phone", "id abc1234567890", ""},
		{"phone", "1234567890123456789", ""}, // too many digits
		{"phone", "12/05/2024 12/06/2024", ""},
		// Links.
		{"link", "see https://example.com/x?y=1.", "https://example.com/x?y=1"},
		{"link", "http://localhost:8080", "http://localhost:8080"},
		{"link", "go to www.example.org", "www.example.org"},
		{"link", "example.com", "example.com"},
		{"link", "visit Sub.Example.CO.uk/path", "Sub.Example.CO.uk/path"},
		{"link", "join discord.gg/abcd!", "discord.gg/abcd"},
		{"link", "t.me/joe", "t.me/joe"},
		{"link", "bit.ly/xyz", "bit.ly/xyz"},
		{"link", "example[.]com", "example[.]com"},
		{"link", "example (dot) net", "example (dot) net"},
		{"link", "example dot com", "example dot com"},
		{"link", "ftp://files.example.com/a", "ftp://files.example.com/a"},
		{"link", "(see example.com)", "example.com"},
		{"link", "EXAMPLE.COM.", "EXAMPLE.COM"},
		{"link", "user@sub.example.com", ""},
		{"link", "awww.cute", ""},
		{"link", "xhttp://nope", ""},
		{"link", "see it.it", ""},
		{"link", "e.g. this", ""},
		{"link", "i.e. that", ""},
		{"link", "node.js rocks", ""},
		{"link", "mr.smith", ""},
		{"link", "ends.it", ""},
		{"link", "3.14", ""},
		{"link", "hello.world", ""},
		{"link", "mail joe@example.com", ""},
		{"link", "a polka dot dress", ""},
	}
	for _, tt := range tests {
		var got string
		switch tt.kind {
		case "email":
			got = findEmail(tt.text)
		case "phone":
			got = findPhone(tt.text)
		case "link":
			got = findLink(tt.text)
		}
		if got != tt.want {
			t.Errorf("%s in %q = %q, want %q", tt.kind, tt.text, got, tt.want)
		}
	}
}
