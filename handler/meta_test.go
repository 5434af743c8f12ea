package handler

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func TestDescribe(t *testing.T) {
	e := newEnv(t)
	wantKeyspaces := []string{"Keyspace1", "Keyspace2", "Keyspace3", "Keyspace4", "system"}
	if got, err := e.c.DescribeKeyspaces(e.ctx); err != nil || !slices.Equal(got, wantKeyspaces) {
		t.Errorf("describe_keyspaces = %v, %v; want %v", got, err, wantKeyspaces)
	}
	if got, _ := e.c.GetStringListProperty(e.ctx, "keyspaces"); !slices.Equal(got, wantKeyspaces) {
		t.Errorf(`get_string_list_property("keyspaces") = %v`, got)
	}
	if got, _ := e.c.GetStringListProperty(e.ctx, "tables"); got == nil || len(got) != 0 {
		t.Errorf(`get_string_list_property("tables") = %#v, want an empty list`, got)
	}
	if got, _ := e.c.DescribeClusterName(e.ctx); got != "Test Cluster" {
		t.Errorf("describe_cluster_name = %q", got)
	}
	if got, _ := e.c.DescribeVersion(e.ctx); got != "2.2.0" {
		t.Errorf("describe_version = %q", got)
	}
	if got, _ := e.c.DescribePartitioner(e.ctx); got != "org.apache.cassandra.dht.CollatingOrderPreservingPartitioner" {
		t.Errorf("describe_partitioner = %q", got)
	}
}

func TestDescribeKeyspace(t *testing.T) {
	e := newEnv(t)
	const marshal = "org.apache.cassandra.db.marshal."
	ks1, err := e.c.DescribeKeyspace(e.ctx, "Keyspace1")
	must(t, err)
	var cfs []string
	for name := range ks1 {
		cfs = append(cfs, name)
	}
	slices.Sort(cfs)
	want := []string{"Standard1", "Standard2", "Standard3", "Standard4", "StandardLong1", "StandardLong2", "Super1", "Super2", "Super3", "Super4"}
	if !slices.Equal(cfs, want) {
		t.Errorf("column families = %v, want %v", cfs, want)
	}
	for name, wantCF := range map[string]map[string]string{
		"StandardLong1": {
			"Type":        "Standard",
			"Desc":        "Keyspace1.StandardLong1\nColumn Family Type: Standard\nColumns Sorted By: " + marshal + "LongType\n",
			"CompareWith": marshal + "LongType",
		},
		"Super4": {
			"Type":                  "Super",
			"Desc":                  "Keyspace1.Super4\nColumn Family Type: Super\nColumns Sorted By: " + marshal + "BytesType\n",
			"CompareWith":           marshal + "BytesType",
			"CompareSubcolumnsWith": marshal + "UTF8Type",
		},
	} {
		if !reflect.DeepEqual(ks1[name], wantCF) {
			t.Errorf("%s = %q\nwant %q", name, ks1[name], wantCF)
		}
	}

	sys, err := e.c.DescribeKeyspace(e.ctx, "system")
	must(t, err)
	wantSys := map[string]map[string]string{
		"LocationInfo": {"Type": "Standard", "Desc": "persistent metadata for the local node", "CompareWith": marshal + "BytesType"},
		"HintsColumnFamily": {"Type": "Super", "Desc": "hinted handoff data", "CompareWith": marshal + "BytesType",
			"CompareSubcolumnsWith": marshal + "BytesType"},
	}
	if !reflect.DeepEqual(sys, wantSys) {
		t.Errorf("system = %q\nwant %q", sys, wantSys)
	}

	if r, err := e.c.DescribeKeyspace(e.ctx, "Nope"); !isNotFound(err) {
		t.Errorf("unknown keyspace: %v, %v; want NotFoundException", r, err)
	}
}

func isNotFound(err error) bool {
	_, ok := err.(*cassandra.NotFoundException)
	return ok
}

func TestDescribeRing(t *testing.T) {
	e := newEnv(t)
	ring, err := e.c.DescribeRing(e.ctx, "Keyspace1")
	must(t, err)
	tok := e.svc.schema.Partitioner.TokenString(e.store.Token())
	want := []*cassandra.TokenRange{{StartToken: tok, EndToken: tok, Endpoints: []string{"127.0.0.1"}}}
	if !reflect.DeepEqual(ring, want) {
		t.Errorf("describe_ring = %v, want %v", ring, want)
	}
}

func TestStringProperties(t *testing.T) {
	e := newEnv(t)
	conf, err := os.ReadFile(fixture(t, "storage-conf-0.6-test.xml"))
	must(t, err)
	tokenMap := `{"` + e.svc.schema.Partitioner.TokenMapString(e.store.Token()) + `":"127.0.0.1"}`
	for _, tt := range []struct{ property, want string }{
		{"cluster name", "Test Cluster"},
		{"config file", string(conf)},
		{"version", "2.2.0"},
		{"token map", tokenMap},
		{"Version", "?"},
		{"", "?"},
	} {
		if got, err := e.c.GetStringProperty(e.ctx, tt.property); err != nil || got != tt.want {
			t.Errorf("get_string_property(%q) = %q, %v; want %q", tt.property, got, err, tt.want)
		}
	}
}

func TestJSONObjectEscapesAsJSONSimple(t *testing.T) {
	// json-simple escapes ", \, / and the control ranges U+0000-U+001F,
	// U+007F-U+009F, U+2000-U+20FF (upper-case hex), and nothing else.
	got := jsonObject(map[string]string{"a/b\"c\\d\n\t\b\f\r\x01\u007f\u2028é<&>": "127.0.0.1"})
	want := `{"a\/b\"c\\d\n\t\b\f\r\u0001\u007F\u2028é<&>":"127.0.0.1"}`
	if got != want {
		t.Errorf("jsonObject = %s\nwant         %s", got, want)
	}
	if got := jsonObject(map[string]string{}); got != "{}" {
		t.Errorf("empty = %s", got)
	}
}

func TestDescribeSplits(t *testing.T) {
	e := newEnv(t)
	p := e.svc.schema.Partitioner
	var keys []string
	for i := 0; i < 300; i++ {
		k := strings.Repeat("k", 1+i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		keys = append(keys, k)
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b("c")), b("v"), 0, one))
	}
	minStr := p.TokenString(nil)
	splits, err := e.c.DescribeSplits(e.ctx, minStr, minStr, 50)
	must(t, err)
	if len(splits) < 3 || splits[0] != minStr || splits[len(splits)-1] != minStr {
		t.Fatalf("describe_splits = %q; want the start first, the end last and splits between", splits)
	}
	var prev []byte
	for _, s := range splits[1 : len(splits)-1] {
		tok, err := p.ParseToken(s)
		if err != nil || bytes.Compare(tok, prev) <= 0 {
			t.Errorf("split %q (%v) not after %x", s, err, prev)
		}
		prev = tok
	}

	for _, tt := range []struct {
		start, end string
		kps        int32
		want       string
	}{
		{minStr, minStr, 0, "keys_per_split must be positive, got 0"},
		{minStr, minStr, -3, "keys_per_split must be positive, got -3"},
	} {
		_, err := e.c.DescribeSplits(e.ctx, tt.start, tt.end, tt.kps)
		// describe_splits declares no exceptions: the message travels as
		// the text of a plain error.
		if err == nil || err.Error() != tt.want {
			t.Errorf("describe_splits(%d) error = %v, want %q", tt.kps, err, tt.want)
		}
		if _, isIRE := err.(*cassandra.InvalidRequestException); isIRE {
			t.Errorf("describe_splits returned an undeclared InvalidRequestException")
		}
	}
	_, parseErr := p.ParseToken("zz")
	if _, err := e.c.DescribeSplits(e.ctx, "zz", minStr, 10); err == nil || parseErr == nil || err.Error() != parseErr.Error() {
		t.Errorf("bad token: %v, want %v", err, parseErr)
	}
	if strings.Contains(e.log.String(), "internal error") {
		t.Errorf("client errors were logged as internal errors:\n%s", e.log)
	}
}
