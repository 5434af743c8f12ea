package cli12

import (
	"bytes"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestStatementsSplitAsTheRealTool(t *testing.T) {
	script := "-- a comment\n  use K;\ncreate keyspace X\n  with a = 1\n  and b = 2;\n/* a\nblock */\n\nset C['k']['c'] = 'v';\nunfinished"
	got := Statements(script)
	want := []string{"use K;", "create keyspace X with a = 1 and b = 2;", "set C['k']['c'] = 'v';"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Statements = %q, want %q", got, want)
	}
}

func TestSplitInline(t *testing.T) {
	got := Statements(SplitInline(`use K; set C['a;b']['c'] = 'it\'s;'; list C;`))
	want := []string{"use K;", `set C['a;b']['c'] = 'it\'s;';`, "list C;"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLex(t *testing.T) {
	toks, err := lex("set Users['k\\'s'][long(-7)] = 2.5 with ttl = 30; -- c")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []tokKind
	var texts []string
	for _, tk := range toks {
		kinds = append(kinds, tk.kind)
		texts = append(texts, tk.text)
	}
	wantTexts := []string{"set", "Users", "[", `'k\'s'`, "]", "[", "long", "(", "-7", ")", "]", "=", "2.5", "with", "ttl", "=", "30", ";", ""}
	if !reflect.DeepEqual(texts, wantTexts) {
		t.Fatalf("tokens %q, want %q", texts, wantTexts)
	}
	if kinds[8] != tNegInt || kinds[12] != tDouble || kinds[16] != tInt || kinds[3] != tString {
		t.Fatalf("kinds %v", kinds)
	}
	if _, err := lex("get C['open"); err == nil {
		t.Fatal("an unterminated string lexed")
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"plain", "it's", `back\slash`, "new\nline\ttab", "héllo", `"q"`} {
		if got := unescape("'" + escape(s) + "'"); got != s {
			t.Errorf("unescape(escape(%q)) = %q", s, got)
		}
	}
	if got := escape("héllo'"); got != `h\u00E9llo\'` {
		t.Errorf("escape = %q", got)
	}
}

func TestFromString(t *testing.T) {
	cases := []struct{ class, in, hex string }{
		{"LongType", "-7", "fffffffffffffff9"},
		{"Int32Type", "12", "0000000c"},
		{"IntegerType", "128", "0080"},
		{"IntegerType", "-129", "ff7f"},
		{"IntegerType", "-128", "80"},
		{"IntegerType", "0", "00"},
		{"BytesType", "cafe", "cafe"},
		{"UTF8Type", "é", "c3a9"},
		{"DoubleType", "2.5", "4004000000000000"},
		{"LexicalUUIDType", "550e8400-e29b-41d4-a716-446655440000", "550e8400e29b41d4a716446655440000"},
		{"BooleanType", "true", "01"},
	}
	for _, c := range cases {
		b, err := fromString(marshalPrefix+c.class, c.in)
		if err != nil || hex.EncodeToString(b) != c.hex {
			t.Errorf("fromString(%s, %q) = %x, %v; want %s", c.class, c.in, b, err, c.hex)
		}
		if c.class != "BytesType" && c.class != "BooleanType" {
			if got := getString(marshalPrefix+c.class, b); got != c.in {
				t.Errorf("getString(%s, %x) = %q, want %q", c.class, b, got, c.in)
			}
		}
	}
	for _, bad := range []struct{ class, in, msg string }{
		{"LongType", "abc", "unable to make long from 'abc'"},
		{"BytesType", "k", "cannot parse 'k' as hex bytes"},
		{"TimeUUIDType", "550e8400-e29b-41d4-a716-446655440000", "Unsupported UUID version: 4"},
	} {
		if _, err := fromString(marshalPrefix+bad.class, bad.in); err == nil || !strings.HasSuffix(err.Error(), bad.msg) {
			t.Errorf("fromString(%s, %q) error %v, want ...%s", bad.class, bad.in, err, bad.msg)
		}
	}
}

func TestTypedFunctions(t *testing.T) {
	u, class, err := callValue(term{fn: "timeuuid", call: true})
	if err != nil || len(u) != 16 || u[6]>>4 != 1 || short(class) != "TimeUUIDType" {
		t.Fatalf("timeuuid() = %x %s %v", u, class, err)
	}
	l, _, err := callValue(term{fn: "lexicaluuid", call: true})
	if err != nil || len(l) != 16 || l[6]>>4 != 4 {
		t.Fatalf("lexicaluuid() = %x %v", l, err)
	}
	b, _, err := callValue(term{fn: "BYTES", call: true})
	if err != nil || !bytes.Equal(b, []byte{}) {
		t.Fatalf("bytes() = %x %v", b, err)
	}
	if _, _, err := callValue(term{fn: "long", call: true}); err == nil || err.Error() != "java.lang.RuntimeException: Argument for 'long' could not be empty." {
		t.Fatalf("long() error %v", err)
	}
	if _, _, err := callValue(term{fn: "nosuch", text: "1", call: true}); err == nil || !strings.HasPrefix(err.Error(), "Function 'nosuch' not found. Available functions: bytes, integer, long,") {
		t.Fatalf("nosuch(1) error %v", err)
	}
}

func TestJavaDouble(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0", 0.1: "0.1", 1: "1.0", 0.05: "0.05", 1e-4: "1.0E-4",
		12345678: "1.2345678E7", 2.5: "2.5", math.Inf(1): "Infinity", -3: "-3.0"} {
		if got := javaDouble(v); got != want {
			t.Errorf("javaDouble(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestPipedEchoesAsTheRealShell reads a piped script without a server
// (help needs none, nor a statement the lexer refuses): the banner, each
// line after its prompt, a statement over two lines, an error that does
// not stop the script, a CRLF line followed by an empty one, and quit
// ending it.
func TestPipedEchoesAsTheRealShell(t *testing.T) {
	var out, errOut bytes.Buffer
	s := NewSession(Config{Port: 1}, &out, &errOut)
	in := "\n-- c\nhelp\n  quit;\r\nget 'x;\n/* a\n*/ help exit;\nquit;\nhelp;\n"
	if err := Piped(s, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	h, err := loadHelp()
	if err != nil {
		t.Fatal(err)
	}
	var quitHelp bytes.Buffer
	q := NewSession(Config{Port: 1}, &quitHelp, &bytes.Buffer{})
	if err := q.Exec("help quit;"); err != nil {
		t.Fatal(err)
	}
	want := "Welcome to Cassandra CLI version 1.2.19\n\n" + h.Banner + "\n" +
		"[default@unknown] \n[default@unknown] -- c\n[default@unknown] help\n...\t  quit;\n" + quitHelp.String() +
		"[default@unknown] \n[default@unknown] get 'x;\n" +
		"[default@unknown] /* a\n...\t*/ help exit;\n" + quitHelp.String() + "[default@unknown] quit;\n"
	if out.String() != want {
		t.Errorf("output:\n%q\nwant\n%q", out.String(), want)
	}
	if !strings.HasPrefix(errOut.String(), "Syntax error") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("error output %q: want the syntax error alone", errOut.String())
	}
	// A last line without its newline is echoed, not run.
	out.Reset()
	if err := Piped(s, strings.NewReader("help;")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasSuffix(got, "\n[default@unknown] help;") {
		t.Errorf("unfinished last line: %q", got)
	}
}

// TestLimit: GET's LIMIT clause, parsed in one place for both forms of
// GET: absent is the default, 0 and a non-number are refused, and a
// number past int32 is capped.
func TestLimit(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int32
		err  string
	}{
		{"", 100, ""},
		{"limit 7", 7, ""},
		{"limit 99999999999", math.MaxInt32, ""},
		{"limit 0", 0, "LIMIT should be greater than zero."},
		{"limit x", 0, "IntegerPositiveLiteral"},
		{"limit", 0, "IntegerPositiveLiteral"},
	} {
		toks, err := lex(c.src + ";")
		if err != nil {
			t.Fatal(err)
		}
		p := &parser{toks: toks, src: c.src}
		got, err := p.limit(100)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("limit(%q) = %d, %v; want an error with %q", c.src, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("limit(%q) = %d, %v; want %d", c.src, got, err, c.want)
		}
	}
}
