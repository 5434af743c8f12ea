package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadAuthFixtures(t *testing.T) {
	a, err := LoadAuth(fixture(t, "passwd.properties"), fixture(t, "access.properties"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Passwords", a.Passwords, map[string]string{
		"alice":        "wonderland7",
		"bob":          "builder42",
		"Grace Hopper": "cobol1959",
	})
	check(t, "Access", a.Access, map[string][]string{
		"Keyspace1":  {"alice", "Grace Hopper"},
		"BloggyAppy": {"alice", "bob"},
	})
}

// The expected values follow the java.util.Properties.load documentation.
func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][2]string
	}{
		{"equals", "a=b", [][2]string{{"a", "b"}}},
		{"colon", "a:b", [][2]string{{"a", "b"}}},
		{"space", "a b", [][2]string{{"a", "b"}}},
		{"space then equals", "a  =  b", [][2]string{{"a", "b"}}},
		{"only one separator eaten", "a==b", [][2]string{{"a", "=b"}}},
		{"space and colon", "a :=b", [][2]string{{"a", "=b"}}},
		{"trailing space kept", "a=b  ", [][2]string{{"a", "b  "}}},
		{"leading space dropped", "   \t\fa=b", [][2]string{{"a", "b"}}},
		{"key only", "a", [][2]string{{"a", ""}}},
		{"empty value", "a=", [][2]string{{"a", ""}}},
		{"empty key", "=b", [][2]string{{"", "b"}}},
		{"comments", "# c\n! d\n  # e\na=b", [][2]string{{"a", "b"}}},
		{"hash inside a value", "a=b#c", [][2]string{{"a", "b#c"}}},
		{"blank lines", "\n\n  \n\r\na=b\n\n", [][2]string{{"a", "b"}}},
		{"escaped space in key", `Elvis\ Presley=graceland4evar`, [][2]string{{"Elvis Presley", "graceland4evar"}}},
		{"escaped separators in key", `a\=b\:c=d`, [][2]string{{"a=b:c", "d"}}},
		{"escapes", `k=\t\n\r\f\\\x`, [][2]string{{"k", "\t\n\r\f\\x"}}},
		{"unicode escape", `k=caf\u00e9`, [][2]string{{"k", "café"}}},
		{"surrogate pair", `k=\ud83d\ude00`, [][2]string{{"k", "😀"}}},
		{"continuation", "a=b\\\n    c\\\n\td", [][2]string{{"a", "bcd"}}},
		{"continuation with CRLF", "a=b\\\r\n  c\r\nx=y", [][2]string{{"a", "bc"}, {"x", "y"}}},
		{"even backslashes do not continue", "a=b\\\\\nc=d", [][2]string{{"a", `b\`}, {"c", "d"}}},
		{"continued line is not a comment", "a=b\\\n#c", [][2]string{{"a", "b#c"}}},
		{"comment is not continued", "#a\\\nb=c", [][2]string{{"b", "c"}}},
		{"continuation into an empty line", "a=b\\\n\nc=d", [][2]string{{"a", "b"}, {"c", "d"}}},
		{"backslash at end of file", "a=b\\", [][2]string{{"a", "b"}}},
		{"CR line ends", "a=b\rc=d", [][2]string{{"a", "b"}, {"c", "d"}}},
		{"later line kept in order", "a=1\na=2", [][2]string{{"a", "1"}, {"a", "2"}}},
		{"utf-8 file", "José=señor", [][2]string{{"José", "señor"}}},
		{"latin-1 file", "Jos\xe9=se\xf1or", [][2]string{{"José", "señor"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			props, err := parseProperties([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			for _, p := range props {
				got = append(got, [2]string{p.key, p.value})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParsePropertiesMalformedEscape(t *testing.T) {
	for _, in := range []string{`a=\u12`, `a=\uzzzz`, "x=1\n\nb=\\u00g0"} {
		_, err := parseProperties([]byte(in))
		var ce *Error
		if !errors.As(err, &ce) || ce.Msg != `Malformed \uxxxx encoding.` || !strings.HasPrefix(ce.Element, "line ") {
			t.Errorf("parseProperties(%q) = %v, want Java's malformed escape error with a line", in, err)
		}
	}
	_, err := parseProperties([]byte("x=1\n\nb=\\u00g0"))
	var ce *Error
	if errors.As(err, &ce) {
		check(t, "line", ce.Element, "line 3")
	}
}

func TestJavaSplitComma(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a", []string{"a"}},
		{"a,b", []string{"a", "b"}},
		{"a, b", []string{"a", " b"}},
		{"a,,b", []string{"a", "", "b"}},
		{",a", []string{"", "a"}},
		{"a,b,,", []string{"a", "b"}},
		{",", []string{}},
		{"", []string{""}},
	} {
		got := javaSplitComma(tc.in)
		if len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("javaSplitComma(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLoadAuthErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ok.properties")
	bad := filepath.Join(dir, "bad.properties")
	if err := os.WriteFile(good, []byte("a=b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("a=\\u00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.properties")
	for _, tc := range []struct {
		passwd, access, file string
	}{
		{missing, good, missing},
		{good, missing, missing},
		{bad, good, bad},
		{good, bad, bad},
		{dir, good, dir}, // a directory is unreadable as a file
	} {
		_, err := LoadAuth(tc.passwd, tc.access)
		var ce *Error
		if !errors.As(err, &ce) || ce.File != tc.file || !strings.HasPrefix(err.Error(), tc.file+": ") {
			t.Errorf("LoadAuth(%s, %s) = %v, want an *Error naming %s", tc.passwd, tc.access, err, tc.file)
		}
	}
}
