package handler

import (
	"context"
	"fmt"
	"strings"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/schema"
)

// login runs the authenticator and, on success, marks this connection as
// logged in. The keyspace only matters to the authorization check; it need
// not exist, and afterwards every keyspace may be used.
func (c *conn) login(ctx context.Context, keyspace string, req *cassandra.AuthenticationRequest) error {
	var creds map[string]string
	if req != nil {
		creds = make(map[string]string, len(req.Credentials))
		for k, v := range req.Credentials {
			creds[javaString(k)] = javaString(v)
		}
	}
	if g := c.s.guard; g != nil {
		// The keyspace is not checked: permissions are, call by call.
		if err := g.Login(ctx, &c.a, "login", creds); err != nil {
			return err
		}
		c.loggedIn.Store(true)
		return nil
	}
	if err := c.s.auth.Login(keyspace, creds); err != nil {
		return err
	}
	c.loggedIn.Store(true)
	return nil
}

// stringProperty is get_string_property.
func (s *Service) stringProperty(name string) string {
	switch name {
	case "cluster name":
		return s.clusterName
	case "config file":
		// 0.6.13 answered "file not found!" here (spec 16.6).
		return s.configText
	case "token map":
		return jsonObject(map[string]string{s.sch().Partitioner.TokenMapString(s.nodeToken): s.nodeAddress})
	case "version":
		return cassandra.VERSION
	}
	return "?"
}

// stringListProperty is get_string_list_property.
func (s *Service) stringListProperty(name string) []string {
	if name == "keyspaces" {
		return s.sch().KeyspaceNames()
	}
	return []string{}
}

// describeRing reports the single node's ring for a configured keyspace.
func (s *Service) describeRing(keyspace string) ([]*cassandra.TokenRange, error) {
	ks := s.sch().Keyspace(keyspace)
	if ks == nil || ks.System {
		return nil, invalid("There is no ring for the keyspace: %s", keyspace)
	}
	t := s.sch().Partitioner.TokenString(s.nodeToken)
	return []*cassandra.TokenRange{{StartToken: t, EndToken: t, Endpoints: []string{s.nodeAddress}}}, nil
}

// describeKeyspace describes every column family of a keyspace; an unknown
// keyspace raises the declared NotFoundException (0.6 failed an assertion,
// spec 16.5).
func (s *Service) describeKeyspace(keyspace string) (map[string]map[string]string, error) {
	ks := s.sch().Keyspace(keyspace)
	if ks == nil {
		return nil, errNotFound
	}
	out := make(map[string]map[string]string, len(ks.ColumnFamilies))
	for name, cf := range ks.ColumnFamilies {
		out[name] = describeColumnFamily(cf)
	}
	return out, nil
}

// describeColumnFamily is one entry of describe_keyspace. Desc is the
// comment, or else 0.6's CFMetaData.pretty() without the JVM identity hash
// it printed after the comparator's class name.
func describeColumnFamily(cf *schema.ColumnFamily) map[string]string {
	d := map[string]string{
		"Type":        cf.Type(),
		"CompareWith": cf.Comparator.Name(),
	}
	if cf.HasComment {
		d["Desc"] = cf.Comment
	} else {
		d["Desc"] = fmt.Sprintf("%s.%s\nColumn Family Type: %s\nColumns Sorted By: %s\n",
			cf.Keyspace, cf.Name, cf.Type(), cf.Comparator.Name())
	}
	if cf.Super {
		d["CompareSubcolumnsWith"] = cf.SubComparator.Name()
	}
	return d
}

// describeSplits returns token strings cutting (start, end] into pieces of
// about keysPerSplit rows: start first, end last.
func (s *Service) describeSplits(ctx context.Context, start, end string, keysPerSplit int32) ([]string, error) {
	if keysPerSplit <= 0 {
		// 0.6 divided by zero here (spec 16.3).
		return nil, invalid("keys_per_split must be positive, got %d", keysPerSplit)
	}
	p := s.sch().Partitioner
	left, err := parseToken(p, start)
	if err != nil {
		return nil, err
	}
	right, err := parseToken(p, end)
	if err != nil {
		return nil, err
	}
	out := []string{p.TokenString(left)}
	for _, b := range engine.RingRange(left, right) {
		tokens, err := s.store.Splits(ctx, "", "", b, int(keysPerSplit))
		if err != nil {
			return nil, err
		}
		for _, t := range tokens {
			out = append(out, p.TokenString(t))
		}
	}
	return append(out, p.TokenString(right)), nil
}

// jsonObject writes a string-to-string map as json-simple's
// JSONValue.toJSONString did for 0.6's token map: `"/"` escaped as `\/`,
// and control characters, U+007F-U+009F and U+2000-U+20FF as \uXXXX.
// Go's encoding/json escapes a different set (e.g. <, >, &).
func jsonObject(m map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for k, v := range m {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(&b, k)
		b.WriteByte(':')
		writeJSONString(&b, v)
	}
	b.WriteByte('}')
	return b.String()
}

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r <= 0x1f || (r >= 0x7f && r <= 0x9f) || (r >= 0x2000 && r <= 0x20ff) {
				fmt.Fprintf(b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
