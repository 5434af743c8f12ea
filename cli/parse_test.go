package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func str(s string, pos int) Literal { return Literal{Kind: LitString, Text: s, Pos: pos} }

func TestParse(t *testing.T) {
	jsmith := Path{Keyspace: "Keyspace1", ColumnFamily: "Standard1", Key: "jsmith"}
	withNames := func(p Path, names ...Literal) Path { p.Names = names; return p }
	tests := []struct {
		src  string
		want []Statement
	}{
		{"help", []Statement{Help{}}},
		{"?", []Statement{Help{}}},
		{"HELP;", []Statement{Help{}}},
		{"quit", []Statement{Quit{}}},
		{"Exit", []Statement{Quit{}}},
		{"", nil},
		{" ;; \n ; ", nil},
		{"# a comment\n-- another\nhelp -- trailing", []Statement{Help{}}},
		{"connect localhost/9160", []Statement{Connect{Host: "localhost", Port: 9160}}},
		{"connect 127.0.0.1/9170", []Statement{Connect{Host: "127.0.0.1", Port: 9170}}},
		{"connect db-1.example.com/1", []Statement{Connect{Host: "db-1.example.com", Port: 1}}},
		{"use Keyspace1", []Statement{Use{Keyspace: "Keyspace1"}}},
		{"show keyspaces", []Statement{Show{What: ShowKeyspaces}}},
		{"show cluster name", []Statement{Show{What: ShowClusterName}}},
		{"SHOW API VERSION", []Statement{Show{What: ShowAPIVersion}}},
		{"show config file", []Statement{Show{What: ShowConfigFile}}},
		{"describe keyspace Keyspace1", []Statement{Describe{Keyspace: "Keyspace1"}}},
		{"describe keyspace", []Statement{Describe{}}},
		{"get Keyspace1.Standard1['jsmith']", []Statement{Get{Path: jsmith}}},
		{"get Standard1['jsmith']", []Statement{Get{Path: Path{ColumnFamily: "Standard1", Key: "jsmith"}}}},
		{"get Keyspace1.Standard1['jsmith']['first']", []Statement{Get{Path: withNames(jsmith, str("first", 34))}}},
		{"get Keyspace1.Super1['jsmith']['sc']['c']", []Statement{Get{Path: Path{Keyspace: "Keyspace1", ColumnFamily: "Super1", Key: "jsmith",
			Names: []Literal{str("sc", 31), str("c", 37)}}}}},
		{"get Keyspace1.Standard1['jsmith'] limit 10", []Statement{Get{Path: jsmith, Limit: 10}}},
		{"get Keyspace1.Standard1['jsmith'] reversed LIMIT 3", []Statement{Get{Path: jsmith, Limit: 3, Reversed: true}}},
		{"get Keyspace1.Standard1['jsmith']['a':'m'] limit 10", []Statement{Get{Path: jsmith,
			Range: &Range{Start: &Literal{Kind: LitString, Text: "a", Pos: 34}, Finish: &Literal{Kind: LitString, Text: "m", Pos: 38}}, Limit: 10}}},
		{"get Keyspace1.Standard1['jsmith'][:'m']", []Statement{Get{Path: jsmith, Range: &Range{Finish: &Literal{Kind: LitString, Text: "m", Pos: 35}}}}},
		{"get Keyspace1.Standard1['jsmith']['a':]", []Statement{Get{Path: jsmith, Range: &Range{Start: &Literal{Kind: LitString, Text: "a", Pos: 34}}}}},
		{"get Keyspace1.Standard1['jsmith'][:]", []Statement{Get{Path: jsmith, Range: &Range{}}}},
		{"get Keyspace1.Super1['k']['sc'][1:2]", []Statement{Get{Path: Path{Keyspace: "Keyspace1", ColumnFamily: "Super1", Key: "k", Names: []Literal{str("sc", 26)}},
			Range: &Range{Start: &Literal{Kind: LitNumber, Text: "1", Pos: 32}, Finish: &Literal{Kind: LitNumber, Text: "2", Pos: 34}}}}},
		{"set Keyspace1.Standard1['jsmith']['first'] = 'John'", []Statement{Set{Path: withNames(jsmith, str("first", 34)), Value: str("John", 45)}}},
		{`set Keyspace1.Standard1['jsmith']['first'] = 'O\'Brien'`, []Statement{Set{Path: withNames(jsmith, str("first", 34)), Value: str("O'Brien", 45)}}},
		{`set Keyspace1.Standard1['jsmith']['first'] = 'O''Brien'`, []Statement{Set{Path: withNames(jsmith, str("first", 34)), Value: str("O'Brien", 45)}}},
		{`set Keyspace1.Standard1['it\'s']['a\\b'] = 'x\ny\tz\x41\0'`, []Statement{Set{
			Path:  Path{Keyspace: "Keyspace1", ColumnFamily: "Standard1", Key: "it's", Names: []Literal{str(`a\b`, 33)}},
			Value: str("x\ny\tzA\x00", 43)}}},
		{"set Keyspace1.StandardLong1['k'][42] = 'v'", []Statement{Set{
			Path:  Path{Keyspace: "Keyspace1", ColumnFamily: "StandardLong1", Key: "k", Names: []Literal{{Kind: LitNumber, Text: "42", Pos: 33}}},
			Value: str("v", 39)}}},
		{"set Keyspace1.StandardLong1['k'][-42] = long(-1)", []Statement{Set{
			Path:  Path{Keyspace: "Keyspace1", ColumnFamily: "StandardLong1", Key: "k", Names: []Literal{{Kind: LitNumber, Text: "-42", Pos: 33}}},
			Value: Literal{Kind: LitFunc, Text: "long", Arg: &Literal{Kind: LitNumber, Text: "-1", Pos: 45}, Pos: 40}}}},
		{"set K.T['k'][timeuuid()] = 0xCAFE", []Statement{Set{
			Path:  Path{Keyspace: "K", ColumnFamily: "T", Key: "k", Names: []Literal{{Kind: LitFunc, Text: "timeuuid", Pos: 13}}},
			Value: Literal{Kind: LitHex, Text: "cafe", Pos: 27}}}},
		{"set K.T['k'][550E8400-e29b-41d4-a716-446655440000] = lexicaluuid()", []Statement{Set{
			Path:  Path{Keyspace: "K", ColumnFamily: "T", Key: "k", Names: []Literal{{Kind: LitUUID, Text: "550e8400-e29b-41d4-a716-446655440000", Pos: 13}}},
			Value: Literal{Kind: LitFunc, Text: "lexicaluuid", Pos: 53}}}},
		{"del Keyspace1.Standard1['jsmith']", []Statement{Del{Path: jsmith}}},
		{"del Keyspace1.Standard1['jsmith']['first']", []Statement{Del{Path: withNames(jsmith, str("first", 34))}}},
		{"count Keyspace1.Standard1['jsmith']", []Statement{Count{Path: jsmith}}},
		{"show api version; help\nquit", []Statement{Show{What: ShowAPIVersion}, Help{}, Quit{}}},
		{"get Keyspace1.Standard1['a;b']", []Statement{Get{Path: Path{Keyspace: "Keyspace1", ColumnFamily: "Standard1", Key: "a;b"}}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q)\n got %#v\nwant %#v", tt.src, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, want string
		col       int
	}{
		{"frobnicate", `unknown command "frobnicate"`, 1},
		{"get", "expected a column family", 4},
		{"get Keyspace1.", "expected a column family name after 'Keyspace1.'", 15},
		{"get Keyspace1.Standard1", "expected '['", 24},
		{"get Keyspace1.Standard1[jsmith]", "expected the row key as a quoted string", 25},
		{"get Keyspace1.Standard1['jsmith", "unterminated string", 25},
		{"get Keyspace1.Standard1[\"jsmith\"]", "single quotes", 25},
		{`set K.C['k']['c'] = 'bad \q'`, `unknown escape \q`, 26},
		{`set K.C['k']['c'] = '\x4'`, `\x needs two hex digits`, 22},
		{"set K.C['k']['c'] = 42", "write '42' for text or long(42)", 21},
		{"set K.C['k']['c'] 'v'", "expected '='", 19},
		{"set K.C['k']['a':'b'] = 'v'", "a range [start:finish] is for get only", 13},
		{"get K.C['k']['a':'b']['c']", "the range must be the last bracket", 22},
		{"get K.C['k']['a']['b']['c']", "too many names", 23},
		{"get K.C['k'] limit 0", "expected a count from 1", 20},
		{"get K.C['k'] limit x", "expected a count from 1", 20},
		{"get K.C['k'] sideways", "expected ';' or the end of the line", 14},
		{"get K.C['k'][99999999999999999999]", "does not fit in a 64-bit integer", 14},
		{"get K.C['k'][0xabc]", "even number of digits", 14},
		{"get K.C['k'][0xzz]", "bad character", 16},
		{"get K.C['k'][first]", "quote text: 'first'", 14},
		{"get K.C['k'][frob()]", "unknown function frob()", 14},
		{"get K.C['k'][long('x')]", "not a 64-bit integer", 19},
		{"connect localhost", "expected '/' and a port", 18},
		{"connect localhost/99999", "expected a port number", 19},
		{"connect /9160", "expected connect <host>/<port>", 9},
		{"connect local host/9160", "a host name has no spaces", 15},
		{"show tables", "expected show keyspaces", 6},
		{"show cluster", `expected "name"`, 13},
		{"describe Keyspace1", `expected "keyspace"`, 10},
		{"help me", "expected ';' or the end of the line", 6},
		{"get K.C['k'] @", "unexpected character", 14},
		{"help\nbogus", "unknown command", 1},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a syntax error", tt.src, err)
			continue
		}
		if !strings.Contains(se.Msg, tt.want) || se.Col != tt.col {
			t.Errorf("Parse(%q) = %q at column %d, want %q at column %d", tt.src, se.Msg, se.Col, tt.want, tt.col)
		}
	}
}

func TestSyntaxErrorNamesLine(t *testing.T) {
	_, err := Parse("help\nshow api version\nget K.C['k'] !")
	if err == nil || err.Error() != `syntax error at line 3, column 14: unexpected character '!'` {
		t.Fatalf("got %v", err)
	}
}

// TestEscapeRoundTrip checks that a string echoed by escapeString lexes
// back to itself.
func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `back\slash`, "new\nline", "\x00\x01\x7f", "tab\there", "naïve ☃"} {
		src := "'" + escapeString(s) + "'"
		toks, err := lex(src)
		if err != nil || len(toks) != 2 || toks[0].kind != tString || toks[0].text != s {
			t.Errorf("lex(%s) = %v, %v; want the string %q", src, toks, err, s)
		}
	}
}

// FuzzParse checks that the parser never panics and that every error it
// returns is a SyntaxError pointing inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"get Keyspace1.Standard1['jsmith']",
		"set Keyspace1.Standard1['jsmith']['first'] = 'John'; get Keyspace1.Standard1['jsmith']",
		`set K.C['it\'s']['x'] = 'a''b\x41'`,
		"get K.S['k']['sc'][1:'9'] limit 10 reversed",
		"set K.C['k'][timeuuid()] = long(-5)",
		"set K.C['k'][550e8400-e29b-41d4-a716-446655440000] = 0xff",
		"connect 127.0.0.1/9160\nshow keyspaces # comment",
		"describe keyspace; use X; count K.C['k']; del K.C['k']; quit",
		"'unterminated", "0x", "-", "--", "[", "get K.C['k'][:]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): error %T is not a SyntaxError", src, err)
			}
			if se.Pos < 0 || se.Pos > len(src) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("Parse(%q): error at %+v, outside the input", src, se)
			}
			_ = se.Error()
			return
		}
		for _, st := range stmts {
			if st == nil {
				t.Fatalf("Parse(%q): nil statement", src)
			}
		}
	})
}
