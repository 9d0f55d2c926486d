// Package modmatch is the compiled matcher that moderation rules evaluate on every message
// sent or edited. Compile turns the enabled rules (keywords, regular expressions, contact
// details) into a Matcher once; Matcher.Match then reads a message in one pass over its
// normalised words plus the rules' regular expressions, and is safe for concurrent use. It
// imports nothing of natter.
//
// # What a Match reports
//
// At most one Match per rule, in the rules' order; nil when no rule matches. For a rule, the
// first condition that holds wins, in this order: a keyword (the first found, by where it
// ends in the text; Term is the keyword as given), a pattern (in the rule's order; Term is the pattern),
// an email, a phone number, a link (Term is the detail as written in the text). Match reads at
// most the first MaxTextLen (64 KiB) bytes of a text; what follows is not evaluated.
//
// # Keywords
//
// Keywords match whole words and whole phrases, never substrings: "ass" does not match
// "class", "cunt" does not match "Scunthorpe", "bad" does not match "badge". Text and keywords
// go through the same normalisation, so a keyword matches what normalises to the same words:
//
//  1. Compatibility decomposition (NFKD, rune by rune), then non-spacing marks (Mn) dropped
//     and lower case: "Café" and "CAFE" are "cafe", fullwidth "ｂａｄ" and mathematical
//     "𝐛𝐚𝐝" are "bad". Letters without a decomposition are spelled out: ß → ss, æ → ae,
//     œ → oe, þ → th, ø → o, ł → l, đ ð → d, ı → i, ħ → h, ŧ → t.
//  2. Words are maximal runs of letters, digits (Unicode), spacing marks (Mc) and the
//     leetspeak symbols @ $ ! |. Everything else separates words. Each character of a script
//     written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) is a word
//     of its own, so the keyword "坏蛋" is the two-word phrase found in "你是坏蛋"; so is each
//     emoji and other pictograph (Unicode So), so "🍆" can be a keyword (skin-tone modifiers
//     and joiners separate, so "👍🏽" has the word "👍").
//  3. ! and | at either end of a word are punctuation and dropped ("bad!" is "bad"); a word
//     left with no letter or digit is dropped.
//  4. In a word that mixes Latin letters with Cyrillic or Greek ones, the Cyrillic and Greek
//     letters that look like Latin ones are read as those ("pаypal" with a Cyrillic а is
//     "paypal"); words of one script are left alone, so Russian "сор" is not "cop".
//  5. In a word with at least one letter, leetspeak is read as letters: 0→o, 1→i, 3→e, 4→a,
//     5→s, 7→t, 8→b, @→a, $→s, !→i, |→i. Because 1 and | stand for both i and l, l is also
//     read as i: i, l, 1, | and ! are one class, in keywords and text alike ("k1ll", "ki11"
//     and "kiii" match "kill"; "lit" matches "iit" too, a price paid for "1it"). A word of
//     digits only is a number and kept as it is ("455" is not "ass"; "420" matches "420").
//  6. In a word with a letter, a run of one repeated character collapses to one, and its
//     length is kept: a text run matches a keyword run at least as long. "baaaad" matches
//     "bad"; "ass" matches "ass" and "asssss" but not "as"; "hello" does not match "helo".
//     Numbers are not collapsed ("1000" does not match "100").
//
// A text is read in two ways, and a keyword matches if it matches either reading of the text
// the same way it reads itself:
//
//   - Reading 1 splits words at '@', so "@bob" has the word "bob" and "joe@bad.com" the word
//     "bad".
//   - Reading 2 keeps '@' as a letter ("@ss" is "ass") and joins obfuscated words: a run of
//     single characters separated by at most 3 characters with no line break ("b a d",
//     "b.a.d", "b-a-d", "b * a * d", "s h ! t" are "bad", "shit"), and two words separated by
//     at most 2 characters without white space ("sh.it", "f-ck"). Only single characters are
//     joined across white space, so "a bad day" keeps the word "bad" and "S c u n t h o r p e"
//     reads "scunthorpe". Reading 2 is built only when it differs from reading 1.
//
// All keywords of all rules are compiled into one Aho-Corasick automaton (each keyword as its
// normalised words with one space before, between and after), so a message costs one pass
// over each reading, whatever the number of keywords. A keyword must be valid UTF-8, at most
// MaxKeywordLen bytes, and have a letter, digit or emoji (ValidateKeyword); a Matcher has at most
// MaxKeywords.
//
// # Regular expressions
//
// Patterns are Go's RE2 syntax (linear time in the text, no backtracking blow-up: even
// `(a+)+$` on 4 KiB of "a" is a fraction of a millisecond), evaluated on the text as written, not normalised, and case-sensitive
// as written: use (?i) for case-insensitive matching. They match anywhere (use \b for words).
// Refused (ValidatePattern): an empty pattern, one longer than MaxPatternLen bytes, one that
// does not parse, one whose compiled program exceeds MaxProgramLen instructions, and one that
// can match an empty string ("a*", "x?", `\b`, "^", "a|"), as it would match nearly every
// message. Before running a pattern, Match checks that the text contains the literal strings
// every match of it must contain (case-folded where the pattern is), so most patterns cost a
// substring search on most messages.
//
// # Contact details
//
// Found on the text as written:
//
//   - Emails: name@domain.tld (any top-level domain of 2 to 24 letters, a space allowed
//     around '@'), and obfuscated: the at written "(at)", "[at]", "{at}", "<at>", "(@)" or
//     " at ", dots written ".", "[.]", "(.)", "(dot)" or " dot ", with a top-level domain from
//     a list of about 60 common ones ("joe at example dot com", "joe(at)example.com").
//   - Phone numbers: 7 to 15 digits, in groups separated by a space, a dot or a dash, with an
//     area code in parentheses and a leading + allowed ("+1 (555) 123-4567", "020 7946 0958").
//     A run of digits without separators counts from 10 digits, or with a leading +. Not
//     phone numbers: dates (2024-01-02, 02.01.2024), year ranges (1990-2024), decimals
//     (3.14159265), IPv4 addresses, dot-grouped thousands (1.000.000), anything glued to a
//     letter, and numbers of fewer than 7 digits ("call me in 5 min").
//   - Links: http://, https://, ftp:// and www. addresses, and bare domains ending with a
//     top-level domain from the list (example.com, discord.gg/abc, bit.ly/x), dots obfuscated
//     as above. Top-level domains that are also words (me, to, in, it, be, us, at, no, so, is)
//     count only with a path after them ("t.me/joe", not "done.it"). The domain of an email
//     address is not a link.
package modmatch
