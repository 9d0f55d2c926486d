package chat

import (
	"strings"
	"testing"
)

func TestSafeFileName(t *testing.T) {
	long := strings.Repeat("é", 600) + ".pdf"
	for _, c := range []struct{ in, want string }{
		{"cat.png", "cat.png"},
		{"../../etc/passwd", "passwd"},
		{`..\..\windows\win.ini`, "win.ini"},
		{"a\x00b\x01c\x7f.txt", "abc.txt"},
		{"a\u202eb\u200bc.txt", "abc.txt"},
		{"\xff\xfebad.txt", "bad.txt"},
		{"...hidden", "hidden"},
		{"  ", "file"},
		{"../", "file"},
		{"", "file"},
		{strings.Repeat("n", 1000), strings.Repeat("n", 255)},
		{strings.Repeat("n", 1000) + ".txt", strings.Repeat("n", 251) + ".txt"},
		{long, strings.Repeat("é", 125) + ".pdf"},
	} {
		got := SafeFileName(c.in)
		if got != c.want {
			t.Errorf("SafeFileName(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > 255 || strings.ContainsAny(got, "/\\\x00") {
			t.Errorf("SafeFileName(%q) = %q: not a safe name", c.in, got)
		}
	}
}

func TestFileMimeType(t *testing.T) {
	for _, c := range []struct{ declared, name, want string }{
		{"image/png", "x", "image/png"},
		{"IMAGE/PNG; charset=x", "x", "image/png"},
		{"", "a.png", "image/png"},
		{"application/octet-stream", "a.pdf", "application/pdf"},
		{"not a type", "a.unknownext", "application/octet-stream"},
		{"text/html", "a.png", "text/html"}, // the declared type wins; serving decides inline or not
		{"", "", "application/octet-stream"},
	} {
		if got := FileMimeType(c.declared, c.name); got != c.want {
			t.Errorf("FileMimeType(%q, %q) = %q, want %q", c.declared, c.name, got, c.want)
		}
	}
}

func TestFileKeyOf(t *testing.T) {
	key := newFileKey()
	if !validFileKey(key) || len(key) != 32 || newFileKey() == key {
		t.Fatalf("newFileKey: %q", key)
	}
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"https://chat.example.com/files/demo/" + key + "/a.png", true},
		{"http://127.0.0.1:8080/files/demo/" + key + "/", true},
		{"https://chat.example.com/files/other/" + key + "/a.png", false}, // another app's
		{"https://chat.example.com/files/demo/" + key[:31] + "/a.png", false},
		{"https://chat.example.com/v3/files/demo/" + key + "/a.png", false},
		{"https://cdn.example.com/a.png", false},
		{"%zz", false},
	} {
		got, ok := fileKeyOf("demo", c.url)
		if ok != c.ok || ok && got != key {
			t.Errorf("fileKeyOf(%q) = %q %v, want %v", c.url, got, ok, c.ok)
		}
	}
}
