package handler19

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// CQL over Thrift. thriftd is no CQL engine: it answers the one family of
// statements that Thrift clients of Cassandra 1.2 send to learn the
// schema (cassandra-cli's loadCql3Defs among them), CQL 3 SELECTs of
// system.schema_keyspaces, system.schema_columnfamilies and
// system.schema_columns, from its own schema (cqlsystem.go). Every other
// statement, and every prepare and execute_prepared call, is refused with
// the Service's errCQL (cqlRefusal); the connection carries on.

// cqlServed names what is answered, at the start of every refusal.
const cqlServed = "thriftd answers over Thrift only CQL 3 SELECTs of system.schema_keyspaces, " +
	"system.schema_columnfamilies and system.schema_columns (to describe its schema); "

// cqlRefusal is the refusal of the CQL thriftd does not serve: it names
// the cluster's native port when thriftd runs on one (hosts), else a
// Cassandra node's.
func cqlRefusal(hosts []string) error {
	if len(hosts) > 0 {
		return invalid("%ssend any other CQL to the native protocol port of the Cassandra cluster that holds the data (%s)", cqlServed, strings.Join(hosts, ", "))
	}
	return invalid("%ssend any other CQL to a Cassandra node's native protocol port (9042 by default)", cqlServed)
}

// The CQL versions Cassandra 1.2.19 served: CQL 2 (cql.QueryProcessor)
// and CQL 3 (cql3.QueryProcessor).
var (
	cql2Version = semver{major: 2, minor: 0, patch: 0}
	cql3Version = semver{major: 3, minor: 0, patch: 5}
)

// semver is Cassandra's SemanticVersion.
type semver struct {
	major, minor, patch int
	pre, build          []string // nil when absent
}

var semverRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-[.\w]+)?(\+[.\w]+)?$`)
var wordRE = regexp.MustCompile(`^\w+$`)

// parseSemver is SemanticVersion(String), with its message.
func parseSemver(s string) (semver, error) {
	bad := invalid("Invalid version value: %s (see http://semver.org/ for details)", s)
	m := semverRE.FindStringSubmatch(s)
	if m == nil || !isASCII(s) {
		return semver{}, bad
	}
	var v semver
	var err error
	if v.major, err = strconv.Atoi(m[1]); err != nil {
		return semver{}, bad
	}
	if v.minor, err = strconv.Atoi(m[2]); err != nil {
		return semver{}, bad
	}
	if v.patch, err = strconv.Atoi(m[3]); err != nil {
		return semver{}, bad
	}
	ids := func(p string) ([]string, bool) {
		if p == "" {
			return nil, true
		}
		parts := strings.Split(p[1:], ".")
		for _, x := range parts {
			if !wordRE.MatchString(x) {
				return nil, false
			}
		}
		return parts, true
	}
	var ok bool
	if v.pre, ok = ids(m[4]); !ok {
		return semver{}, bad
	}
	if v.build, ok = ids(m[5]); !ok {
		return semver{}, bad
	}
	return v, nil
}

// isASCII: Java's \d and \w match ASCII only.
func isASCII(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

func (v semver) String() string {
	s := strconv.Itoa(v.major) + "." + strconv.Itoa(v.minor) + "." + strconv.Itoa(v.patch)
	if v.pre != nil {
		s += "-" + strings.Join(v.pre, ".")
	}
	if v.build != nil {
		s += "+" + strings.Join(v.build, ".")
	}
	return s
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (v semver) compare(o semver) int {
	if c := cmpInt(v.major, o.major); c != 0 {
		return c
	}
	if c := cmpInt(v.minor, o.minor); c != 0 {
		return c
	}
	if c := cmpInt(v.patch, o.patch); c != 0 {
		return c
	}
	if c := compareIdentifiers(v.pre, o.pre, 1); c != 0 {
		return c
	}
	return compareIdentifiers(v.build, o.build, -1)
}

// compareIdentifiers is SemanticVersion.compareIdentifiers: numbers before
// words, and absent identifiers ordered by absent.
func compareIdentifiers(a, b []string, absent int) int {
	if a == nil {
		if b == nil {
			return 0
		}
		return absent
	}
	if b == nil {
		return -absent
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		n1, e1 := strconv.Atoi(a[i])
		n2, e2 := strconv.Atoi(b[i])
		switch {
		case e1 == nil:
			if e2 != nil || n1 < n2 {
				return -1
			}
			if n1 > n2 {
				return 1
			}
		case e2 == nil:
			return 1
		default:
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(a), len(b))
}

// supportedBy is SemanticVersion.isSupportedBy.
func (v semver) supportedBy(o semver) bool { return v.major == o.major && v.compare(o) <= 0 }

// setCQLVersion is ClientState.setCQLVersion of 1.2.19: the connection's
// CQL major version, 2 or 3.
func (c *conn) setCQLVersion(s string) error {
	v, err := parseSemver(s)
	if err != nil {
		return err
	}
	if v.compare(semver{major: 3, pre: []string{"beta1"}}) == 0 {
		return invalid("There has been a few syntax breaking changes between 3.0.0-beta1 and 3.0.0 " +
			"(mainly the syntax for options of CREATE KEYSPACE and CREATE TABLE). 3.0.0-beta1 " +
			" is not supported; please upgrade to 3.0.0")
	}
	switch {
	case v.supportedBy(cql2Version):
		c.cqlMajor = 2
	case v.supportedBy(cql3Version):
		c.cqlMajor = 3
	default:
		return invalid("Provided version %s is not supported by this server (supported: %s, %s)", v, cql2Version, cql3Version)
	}
	return nil
}

// validateCQLVersion is CassandraServer.validateCQLVersion: once a version
// is set, the calls of the other major version are refused.
func (c *conn) validateCQLVersion(major int) error {
	if c.cqlMajor == 0 || c.cqlMajor == major {
		return nil
	}
	return invalid("Cannot execute/prepare CQL%d statement since the CQL has been set to CQL%d"+
		"(This might mean your client hasn't been upgraded correctly to use the new CQL3 methods introduced in Cassandra 1.2+).",
		major, c.cqlMajor)
}

// schemaSelect is a parsed SELECT of a system schema table.
type schemaSelect struct {
	columns []string // nil: *
	table   string
	where   map[string]string // column = 'value', ANDed
	limit   int               // 0: none
}

// cqlToken is one token of a statement: an identifier (lowercased unless
// quoted), a string literal, or punctuation.
type cqlToken struct {
	text   string
	quoted bool // a "quoted identifier"
	str    bool // a 'string literal'
	num    bool // an integer
}

// lexCQL splits a statement into tokens; ok is false on anything outside
// the small language parseSchemaSelect reads.
func lexCQL(q string) ([]cqlToken, bool) {
	var out []cqlToken
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '\'' || ch == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(q) {
					return nil, false
				}
				if q[j] == ch {
					if j+1 < len(q) && q[j+1] == ch { // doubled: one quote
						b.WriteByte(ch)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(q[j])
				j++
			}
			out = append(out, cqlToken{text: b.String(), quoted: ch == '"', str: ch == '\''})
			i = j + 1
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] >= '0' && q[j] <= '9') {
				j++
			}
			out = append(out, cqlToken{text: strings.ToLower(q[i:j])})
			i = j
		case ch >= '0' && ch <= '9' || ch == '-' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			out = append(out, cqlToken{text: q[i:j], num: true})
			i = j
		case strings.IndexByte("*,.=;", ch) >= 0:
			out = append(out, cqlToken{text: string(ch)})
			i++
		default:
			return nil, false
		}
	}
	return out, true
}

// parseSchemaSelect reads
//
//	SELECT * | col [, col ...] FROM [system.]table
//	    [WHERE col = 'v' [AND col = 'v' ...]] [LIMIT n] [;]
//
// keyspace is the connection's, for an unqualified table. ok is false for
// any other statement.
func parseSchemaSelect(q, keyspace string) (sel schemaSelect, ok bool) {
	toks, ok := lexCQL(q)
	if !ok {
		return sel, false
	}
	if n := len(toks); n > 0 && toks[n-1].text == ";" && !toks[n-1].str && !toks[n-1].quoted {
		toks = toks[:n-1]
	}
	i := 0
	word := func(w string) bool {
		if i < len(toks) && !toks[i].str && !toks[i].quoted && !toks[i].num && toks[i].text == w {
			i++
			return true
		}
		return false
	}
	ident := func() (string, bool) {
		if i < len(toks) && !toks[i].str && !toks[i].num && (toks[i].quoted && toks[i].text != "" || !toks[i].quoted && isIdent(toks[i].text)) {
			i++
			return toks[i-1].text, true
		}
		return "", false
	}
	if !word("select") {
		return sel, false
	}
	if !word("*") {
		for {
			c, ok := ident()
			if !ok {
				return sel, false
			}
			sel.columns = append(sel.columns, c)
			if !word(",") {
				break
			}
		}
	}
	if !word("from") {
		return sel, false
	}
	first, ok := ident()
	if !ok {
		return sel, false
	}
	ks, table := keyspace, first
	if word(".") {
		if table, ok = ident(); !ok {
			return sel, false
		}
		ks = first
	}
	if ks != "system" {
		return sel, false
	}
	sel.table = table
	if word("where") {
		sel.where = map[string]string{}
		for {
			c, ok := ident()
			if !ok || !word("=") || i >= len(toks) || !toks[i].str {
				return sel, false
			}
			if _, dup := sel.where[c]; dup {
				return sel, false
			}
			sel.where[c] = toks[i].text
			i++
			if !word("and") {
				break
			}
		}
	}
	if word("limit") {
		if i >= len(toks) || !toks[i].num {
			return sel, false
		}
		n, err := strconv.ParseInt(toks[i].text, 10, 32)
		if err != nil {
			return sel, false
		}
		if n <= 0 {
			sel.limit = -1
		} else {
			sel.limit = int(n)
		}
		i++
	}
	return sel, i == len(toks)
}

// isIdent: an unquoted identifier, not punctuation or a keyword of the
// statement.
func isIdent(s string) bool {
	switch s {
	case "select", "from", "where", "and", "limit", "*", ",", ".", "=", ";":
		return false
	}
	return true
}

// uncompress is CassandraServer.uncompress: a GZIP query is a zlib stream.
func uncompress(query []byte, compression cassandra19.Compression) (string, error) {
	if compression == cassandra19.Compression_GZIP {
		r, err := zlib.NewReader(bytes.NewReader(query))
		if err != nil {
			return "", invalid("Error deflating query string.")
		}
		b, err := io.ReadAll(io.LimitReader(r, maxQueryLength+1))
		if err != nil || len(b) > maxQueryLength {
			return "", invalid("Error deflating query string.")
		}
		query = b
	}
	if !utf8.Valid(query) {
		return "", invalid("Input length = 1")
	}
	return string(query), nil
}

// maxQueryLength bounds a decompressed query, so that a small compressed
// one cannot take the server's memory.
const maxQueryLength = 16 << 20

// executeCQL3 is execute_cql3_query: the schema SELECTs answered, the rest
// refused.
func (c *conn) executeCQL3(query []byte, compression cassandra19.Compression) (*cassandra19.CqlResult_, error) {
	if err := c.validateCQLVersion(3); err != nil {
		return nil, err
	}
	q, err := uncompress(query, compression)
	if err != nil {
		return nil, err
	}
	sel, ok := parseSchemaSelect(q, c.keyspace)
	// 2.1 checks the login once the statement is parsed (its checkAccess),
	// and every statement but USE checks it: a client that has not logged
	// in is told so before thriftd refuses what it does not serve. The
	// schema tables are readable by every user who logged in
	// (ClientState.READABLE_SYSTEM_RESOURCES).
	if err := c.validateLogin(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.s.errCQL
	}
	return c.executeSchemaSelect(sel)
}

// refuseCQL answers a statement thriftd does not serve after the checks
// 2.1 ran first: the CQL version, the query's decompression, then the
// login (prepare_cql_query and prepare_cql3_query check it before they
// parse; execute_cql_query's statements check it once parsed, all but
// USE).
func (c *conn) refuseCQL(major int, query []byte, compression cassandra19.Compression) error {
	if err := c.validateCQLVersion(major); err != nil {
		return err
	}
	if _, err := uncompress(query, compression); err != nil {
		return err
	}
	if err := c.validateLogin(); err != nil {
		return err
	}
	return c.s.errCQL
}

// refusePrepared: no statement is ever prepared, so none can be executed.
func (c *conn) refusePrepared(major int) error {
	if err := c.validateCQLVersion(major); err != nil {
		return err
	}
	return c.s.errCQL
}
