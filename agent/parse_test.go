package agent

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPlainText(t *testing.T) {
	tests := []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`{"text": "hi"}`, "hi", true},
		{`{"text": ""}`, "", true},
		{`{"choices": [{"message": {"role": "assistant", "content": "yo"}}]}`, "yo", true},
		{`{"text": 1}`, "", false},
		{`{"answer": "hi"}`, "", false},
		{`{"choices": []}`, "", false},
		{`["hi"]`, "", false},
		{`"hi"`, "", false},
		{`{"text": "hi"} trailing`, "", false},
		{"\x00\x01\xff", "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := plainText([]byte(tt.raw))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("plainText(%q) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name string
		text string
		cut  bool
	}{
		{"short", "hello", false},
		{"at the limit", strings.Repeat("a", MaxAnswerBytes), false},
		{"over", strings.Repeat("a", MaxAnswerBytes+1), true},
		{"multibyte over", strings.Repeat("é", MaxAnswerBytes), true},
		{"quotes double when escaped", strings.Repeat(`"`, MaxAnswerBytes), true},
		{"control characters", strings.Repeat("\x01", 3000), true},
		{"NUL dropped", "a\x00b", false},
	}
	for _, tt := range tests {
		got, cut := fit(tt.text)
		b, _ := json.Marshal(got)
		if cut != tt.cut || !utf8.ValidString(got) || len(got) > MaxAnswerBytes || len(b) > MaxAnswerBytes+1000 || !strings.HasPrefix(strings.ReplaceAll(tt.text, "\x00", ""), got) || strings.Contains(got, "\x00") {
			t.Errorf("%s: cut %v, %d bytes (%d as JSON), valid %v", tt.name, cut, len(got), len(b), utf8.ValidString(got))
		}
	}
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("data: a\r\n\nlast"), 16)
	for _, want := range []string{"data: a", "", "last"} {
		got, err := readLine(r)
		if err != nil || string(got) != want {
			t.Fatalf("got %q %v, want %q", got, err, want)
		}
	}
	if _, err := readLine(r); err == nil {
		t.Error("no EOF")
	}
	long := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", maxLine+10)+"\n"), 16)
	if _, err := readLine(long); err != errLongLine {
		t.Errorf("a long line: %v", err)
	}
}
