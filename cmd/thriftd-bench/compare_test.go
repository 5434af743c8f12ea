package main

import (
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCompareColumns(t *testing.T) {
	for _, tc := range []struct {
		columns, reference string
		explicit           bool
		want               []string
		fails              bool
	}{
		{"real,19,0.6,noop", "start", false, []string{"real", "19", "0.6", "noop"}, false},
		// The default columns without a real node: the real one is left out.
		{"real,19,0.6,noop", "off", false, []string{"19", "0.6", "noop"}, false},
		// Asked for by name, it needs one.
		{"real,19", "off", true, nil, true},
		{"19,0.6", "127.0.0.1:19161", true, []string{"19", "0.6"}, false},
		{"none", "start", true, nil, false},
		{"19,thriftd", "start", true, nil, true},
		{"real,19,cql", "production", true, []string{"real", "19", "cql"}, false},
		{"cql,direct", "off", true, []string{"cql", "direct"}, false},
		// The direct client replays what the cql column's thriftd sends.
		{"19,direct", "off", true, nil, true},
	} {
		c := compareOptions{reference: tc.reference}
		err := c.parse(tc.columns, "32", tc.explicit)
		if (err != nil) != tc.fails {
			t.Fatalf("-compare %s -reference %s: error %v", tc.columns, tc.reference, err)
		}
		if err == nil && !slices.Equal(c.columns, tc.want) {
			t.Fatalf("-compare %s -reference %s: columns %v, want %v", tc.columns, tc.reference, c.columns, tc.want)
		}
	}
}

// -profile's directory is made when the flags are read, and one that
// cannot be made stops the run there.
func TestProfileDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof", "run1")
	c := compareOptions{reference: "start", profiles: dir}
	if err := c.parse("19", "32", true); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("-profile %s: not made (%v)", dir, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c = compareOptions{reference: "start", profiles: filepath.Join(file, "prof")}
	if err := c.parse("19", "32", true); err == nil || !strings.Contains(err.Error(), "-profile") {
		t.Fatalf("-profile under a file: %v, want an error naming -profile", err)
	}
}

// thriftd serves the comparison with OrderPreservingPartitioner, the
// repository's configuration otherwise unchanged.
func TestOrderPreservingConfig(t *testing.T) {
	dir := t.TempDir()
	out, err := withPartitioner(filepath.Join("..", "..", "storage-conf.xml"), dir, "org.apache.cassandra.dht.OrderPreservingPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join("..", "..", "storage-conf.xml"))
	s := string(raw)
	if !strings.Contains(s, "<Partitioner>org.apache.cassandra.dht.OrderPreservingPartitioner</Partitioner>") ||
		strings.Contains(s, "RandomPartitioner</Partitioner>") {
		t.Fatalf("partitioner not replaced")
	}
	if strings.Count(s, "\n") != strings.Count(string(orig), "\n") || !strings.Contains(s, `<Keyspace Name="Keyspace1">`) {
		t.Fatalf("the rest of the configuration changed")
	}
	if _, err := withPartitioner(filepath.Join(dir, "missing.xml"), dir, "x"); err == nil {
		t.Fatal("a missing configuration was accepted")
	}
}

// -shapes picks rows by call name, in the table's order.
func TestChosenShapes(t *testing.T) {
	c := compareOptions{shapes: []string{"insert", "get_slice"}}
	var got []string
	for _, s := range c.chosen() {
		got = append(got, s.name)
	}
	if want := []string{"get_slice (10 of 100 columns)", "insert (1 column)"}; !slices.Equal(got, want) {
		t.Fatalf("chose %v, want %v", got, want)
	}
	if n := len((&compareOptions{}).chosen()); n != 9 {
		t.Fatalf("no -shapes chose %d shapes, want all 9", n)
	}
	if err := flagSetWithCompare().Parse([]string{"-shapes", "get_slices"}); err == nil {
		t.Fatal("an unknown shape was accepted")
	}
}

func flagSetWithCompare() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	(&compareOptions{}).register(fs)
	return fs
}

// The index shape reads the Indexed family's rows, all the rows of one
// value a call; the other shapes the loaded rows.
func TestIndexedShapeArgs(t *testing.T) {
	for _, s := range shapes19() {
		got := strings.Join(s.args19For(2000, 100_000), " ")
		switch {
		case s.indexed && !strings.HasPrefix(got, "-n 100000 -g 1000 -o indexed -cf Indexed -index-values 100 "):
			t.Fatalf("%s: args %q", s.name, got)
		case !s.indexed && !strings.HasPrefix(got, "-n 2000 "):
			t.Fatalf("%s: args %q", s.name, got)
		}
	}
	c := compareOptions{shapes: []string{"get_indexed_slices"}}
	if got := c.chosen(); len(got) != 1 || !got[0].indexed || got[0].args06 != nil {
		t.Fatalf("-shapes get_indexed_slices chose %+v", got)
	}
}

// thriftd serves the comparison with the real servers' partitioner, the
// 0.6 equivalent of ByteOrderedPartitioner, Murmur3Partitioner when a
// Cassandra store but no real server is there, or what -partitioner says.
func TestThriftdPartitioner(t *testing.T) {
	const pkg = "org.apache.cassandra.dht."
	for _, tc := range []struct {
		flag, real string
		columns    []string
		want       string
	}{
		{"", pkg + "ByteOrderedPartitioner", []string{"real", "19"}, pkg + "OrderPreservingPartitioner"},
		{"", pkg + "Murmur3Partitioner", []string{"real", "19", "cql"}, pkg + "Murmur3Partitioner"},
		{"", "", []string{"19", "cql"}, pkg + "Murmur3Partitioner"},
		{"", "", []string{"19"}, pkg + "OrderPreservingPartitioner"},
		{"RandomPartitioner", pkg + "Murmur3Partitioner", []string{"real", "19"}, pkg + "RandomPartitioner"},
	} {
		c := compareOptions{partitioner: tc.flag, columns: tc.columns}
		if got := c.thriftdPartitioner(tc.real); got != tc.want {
			t.Errorf("-partitioner %q, real %q, columns %v: %s, want %s", tc.flag, tc.real, tc.columns, got, tc.want)
		}
	}
	for _, tc := range []struct{ part, reference, node string }{
		{pkg + "Murmur3Partitioner", "start", "murmur3"},
		{pkg + "Murmur3Partitioner", "production", "production"},
		{pkg + "RandomPartitioner", "production", "random"},
		{pkg + "OrderPreservingPartitioner", "start", "byteordered"},
		{pkg + "Murmur3Partitioner", "127.0.0.1:9160", "murmur3"},
	} {
		if got := clusterFor(tc.part, tc.reference); got != tc.node {
			t.Errorf("clusterFor(%s, -reference %s) = %s, want %s", tc.part, tc.reference, got, tc.node)
		}
	}
}

// -against names the servers to compare with; -real the releases of
// -reference production.
func TestAgainstAndReal(t *testing.T) {
	var c compareOptions
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.register(fs)
	if err := fs.Parse([]string{"-against", "10.0.0.1:9160,10.0.0.2:9160", "-real", "2.1,3.11"}); err != nil {
		t.Fatal(err)
	}
	servers, err := c.realServers()
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].addr != "10.0.0.1:9160" || servers[1].addr != "10.0.0.2:9160" {
		t.Fatalf("-against: %+v", servers)
	}
	if !slices.Equal(c.versions, []string{"2.1", "3.11"}) {
		t.Fatalf("-real: %v", c.versions)
	}
	if err := fs.Parse([]string{"-real", "4.0"}); err == nil {
		t.Fatal("-real 4.0 was accepted")
	}
}

// -rate gives every shape one rate, or some shapes rates of their own.
func TestRatePerShape(t *testing.T) {
	var c compareOptions
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.register(fs)
	if err := fs.Parse([]string{"-rate", "3000,get_range_slices=300, get_indexed_slices = 50"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range c.chosen() {
		got[s.name[:strings.IndexByte(s.name, ' ')]] = c.rateFor(s)
	}
	want := map[string]float64{"get_slice": 3000, "multiget_slice": 3000, "get_range_slices": 300, "get_paged_slice": 3000,
		"insert": 3000, "batch_mutate": 3000, "add": 3000, "get_indexed_slices": 50}
	if !maps.Equal(got, want) {
		t.Fatalf("rates %v, want %v", got, want)
	}
	if err := fs.Parse([]string{"-rate", "2000"}); err != nil || c.rateFor(c.chosen()[2]) != 2000 {
		t.Fatalf("-rate 2000: %v, range at %v", err, c.rateFor(c.chosen()[2]))
	}
	for _, bad := range []string{"0", "fast", "get_slices=10", "100,200", "get_slice=-1"} {
		if err := fs.Parse([]string{"-rate", bad}); err == nil {
			t.Errorf("-rate %s was accepted", bad)
		}
	}
}
