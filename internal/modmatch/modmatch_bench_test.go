package modmatch

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports the process's CPU time per operation as cpu-ns/op, beside the wall-clock
// ns/op: on a shared machine the two differ by how much of a core the benchmark got.
func cpuTimer(b *testing.B) func() {
	var start syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &start); err != nil {
		return func() {}
	}
	return func() {
		var end syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &end); err != nil || b.N == 0 {
			return
		}
		cpu := time.Duration(end.Utime.Nano()-start.Utime.Nano()) + time.Duration(end.Stime.Nano()-start.Stime.Nano())
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// Run: go test ./internal/modmatch -run x -bench . -benchmem

// benchKeywords returns n distinct made-up keywords: words of 4 to 10 letters, one in ten a
// two-word phrase, a few with accents or digits.
func benchKeywords(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	word := func() string {
		b := make([]byte, 4+r.IntN(7))
		for i := range b {
			b[i] = 'a' + byte(r.IntN(26))
		}
		return string(b)
	}
	for len(out) < n {
		k := word()
		switch r.IntN(20) {
		case 0, 1:
			k += " " + word()
		case 2:
			k = "é" + k
		case 3:
			k += "7"
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

var benchPatterns = []string{
	`(?i)buy\s+now`, `(?i)\bfree\s+money\b`, `(?i)crypto(currency)?\s+giveaway`, `\d{3}-\d{2}-\d{4}`,
	`(?i)click\s+here`, `(?i)v[i1]agra`, `(?i)\bwin\b.*\bprize\b`, `(?i)(bit|eth)coin\s+doubler`,
	`[A-Z]{12,}`, `(?i)limited\s+offer`,
}

// benchText is ordinary chat text of about n bytes that matches nothing.
func benchText(n int) string {
	const para = "Hey, are we still on for the meeting tomorrow? I think the slides need one more " +
		"pass, especially the part about the quarterly numbers. Let me know what you think and " +
		"whether Café Lumière works for lunch afterwards; otherwise we can order in. "
	s := strings.Repeat(para, n/len(para)+1)
	return s[:n]
}

func benchMatcher(b *testing.B, keywords int) *Matcher {
	b.Helper()
	kws := benchKeywords(keywords)
	var rules []Rule
	for i := 0; i < len(kws); i += 1000 { // ten lists of a thousand
		rules = append(rules, Rule{ID: fmt.Sprint("kw", i), Keywords: kws[i:min(i+1000, len(kws))]})
	}
	rules = append(rules,
		Rule{ID: "patterns", Patterns: benchPatterns},
		Rule{ID: "contacts", Emails: true, Phones: true, Links: true})
	m, err := Compile(rules)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		kws := benchKeywords(n)
		b.Run(fmt.Sprint(n, "keywords"), func(b *testing.B) {
			b.ReportAllocs()
			defer cpuTimer(b)()
			for b.Loop() {
				if _, err := Compile([]Rule{{ID: "r", Keywords: kws}}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(retained(b, kws)), "retained-B")
		})
	}
}

// retained returns the heap a Matcher of the keywords keeps, in bytes.
func retained(b *testing.B, kws []string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Compile([]Rule{{ID: "r", Keywords: kws}})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	return after.HeapAlloc - before.HeapAlloc
}

func BenchmarkMatch(b *testing.B) {
	m := benchMatcher(b, 10_000)
	for _, size := range []int{200, 4 << 10} {
		text := benchText(size)
		if got := m.Match(text); got != nil {
			b.Fatalf("bench text matches: %v", got)
		}
		b.Run(fmt.Sprint(size, "B"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			defer cpuTimer(b)()
			for b.Loop() {
				m.Match(text)
			}
		})
	}
	// A text that matches a keyword of each list, and a link, in the middle.
	kws := benchKeywords(10_000)
	hit := benchText(100) + " " + kws[10] + " " + kws[5010] + " see example.com " + benchText(100)
	b.Run("200B-hits", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuTimer(b)()
		for b.Loop() {
			if len(m.Match(hit)) != 3 {
				b.Fatal("want 3 matches")
			}
		}
	})
}

// BenchmarkPathologicalRegex: patterns that backtrack exponentially in other engines, on a
// 4 KiB message made to trouble them, through Match (the send path, where the literal
// prefilter may skip the regex) and through the regexp alone (RE2: linear time).
func BenchmarkPathologicalRegex(b *testing.B) {
	for _, tc := range []struct{ pattern, text string }{
		{`(a+)+$`, strings.Repeat("a", 4<<10-1) + "!"},
		{`(x|x|x)*y`, strings.Repeat("x", 4<<10)},
		{`(x|x|x)*y`, strings.Repeat("x", 4<<10-1) + "y"},
		{`(.*a){20}`, strings.Repeat("a", 4<<10-1) + "b"},
		{`(?i)(\w+\s?)+$`, strings.Repeat("word ", 4<<10/5) + "!"},
	} {
		m, err := Compile([]Rule{{ID: "p", Patterns: []string{tc.pattern}}})
		if err != nil {
			b.Fatal(err)
		}
		re := m.rules[0].patterns[0].re
		name := fmt.Sprintf("%s/%q", tc.pattern, tc.text[len(tc.text)-1:])
		b.Run(name+"/Match", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.text)))
			defer cpuTimer(b)()
			for b.Loop() {
				m.Match(tc.text)
			}
		})
		b.Run(name+"/regexp", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.text)))
			defer cpuTimer(b)()
			for b.Loop() {
				re.MatchString(tc.text)
			}
		})
	}
}

// BenchmarkAdversarial: 64 KiB messages built to make a careless scanner quadratic, against
// the matcher of BenchmarkMatch. Each should cost about what ordinary text of that size does.
func BenchmarkAdversarial(b *testing.B) {
	m := benchMatcher(b, 10_000)
	fill := func(unit string) string { return strings.Repeat(unit, MaxTextLen/len(unit)) }
	for _, tc := range []struct{ name, text string }{
		{"ordinary", benchText(MaxTextLen)},
		{"at-signs", fill("a@")},
		{"local-parts", fill("a.b.c.d.e.f@")},
		{"dot-com", fill("com dot ")},
		{"domains", fill("a.co ")},
		{"labels", fill("a.") + "com"},
		{"digits", fill("1 ")},
		{"single-letters", fill("b a d ")},
		{"one-word", fill("x")},
		{"keyword", fill(benchKeywords(10_000)[3] + " ")},
		{"leet", fill("@$!|")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.text)))
			defer cpuTimer(b)()
			for b.Loop() {
				m.Match(tc.text)
			}
		})
	}
}
