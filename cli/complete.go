package cli

import (
	"context"
	"slices"
	"strings"
)

// commands are the words a statement starts with.
var commands = []string{"connect", "count", "del", "describe", "exit", "get", "help", "quit", "set", "show", "use"}

// showWhat are the words after show.
var showWhat = []string{"api version", "cluster name", "config file", "keyspaces"}

// Completer completes the word before the cursor: a command, a word of
// show or describe, a keyspace name, or a column family name (after
// "keyspace.", or alone for the default keyspace). Names come from the
// server (get_string_list_property("keyspaces") and describe_keyspace),
// asked once per connection. It implements readline.AutoCompleter.
type Completer struct {
	Session *Session
	Ctx     context.Context
}

// Do returns the endings of the candidates for the word that ends at pos,
// and the length of that word.
func (c *Completer) Do(line []rune, pos int) ([][]rune, int) {
	text := string(line[:pos])
	// Only the statement the cursor is in counts.
	if i := strings.LastIndexByte(text, ';'); i >= 0 {
		text = text[i+1:]
	}
	start := len(text)
	for start > 0 && isCompletionByte(text[start-1]) {
		start--
	}
	word := text[start:]
	before := strings.Fields(strings.ToLower(text[:start]))

	var cands []string
	switch {
	case len(before) == 0:
		cands = withSuffix(matchFold(commands, word), " ")
	case len(before) == 1 && before[0] == "show":
		cands = matchFold(showWhat, word)
	case len(before) == 1 && before[0] == "describe":
		cands = withSuffix(matchFold([]string{"keyspace"}, word), " ")
	case (len(before) == 2 && before[0] == "describe" && before[1] == "keyspace") || (len(before) == 1 && before[0] == "use"):
		cands = match(c.Session.Keyspaces(c.Ctx), word)
	case len(before) == 1 && slices.Contains([]string{"get", "set", "del", "count"}, before[0]):
		if ks, cf, ok := strings.Cut(word, "."); ok {
			// Offer the ends of keyspace.cf, keeping "keyspace." typed.
			return endings(match(c.Session.ColumnFamilies(c.Ctx, ks), cf), len([]rune(cf)))
		}
		cands = withSuffix(match(c.Session.Keyspaces(c.Ctx), word), ".")
		if c.Session.Keyspace() != "" {
			cands = append(cands, match(c.Session.ColumnFamilies(c.Ctx, ""), word)...)
		}
	}
	return endings(cands, len([]rune(word)))
}

// endings turns whole candidates into what readline inserts: each
// candidate minus the n runes already typed.
func endings(cands []string, n int) ([][]rune, int) {
	out := make([][]rune, 0, len(cands))
	for _, s := range cands {
		out = append(out, []rune(s)[n:])
	}
	return out, n
}

func match(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// matchFold matches keywords in any case, completing in upper case when
// the prefix typed is upper case.
func matchFold(words []string, prefix string) []string {
	upper := prefix != "" && prefix == strings.ToUpper(prefix) && prefix != strings.ToLower(prefix)
	var out []string
	for _, w := range words {
		if len(w) >= len(prefix) && strings.EqualFold(w[:len(prefix)], prefix) {
			if upper {
				w = strings.ToUpper(w)
			}
			out = append(out, prefix+w[len(prefix):])
		}
	}
	return out
}

func withSuffix(words []string, suffix string) []string {
	for i := range words {
		words[i] += suffix
	}
	return words
}

func isCompletionByte(c byte) bool { return isWordByte(c) || c == '.' || c >= 0x80 }
