package testenv

import (
	"bufio"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LevelDBOnlyList is test/cassandra/leveldb-only: the tests that check the
// embedded store itself and so do not run on the Cassandra backend.
func LevelDBOnlyList() string { return filepath.Join(RepoRoot(), "test", "cassandra", "leveldb-only") }

// levelDBOnly reads the list's entries of suite ("go" or "python"): test
// name to reason.
func levelDBOnly(suite string) (map[string]string, error) {
	f, err := os.Open(LevelDBOnlyList())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == suite {
			out[f[1]] = strings.Join(f[2:], " ")
		}
	}
	return out, sc.Err()
}

// SkipLevelDBOnly skips t, with the list's reason, when its top-level test
// is in test/cassandra/leveldb-only and the backend is Cassandra.
func SkipLevelDBOnly(t testing.TB) {
	t.Helper()
	if Backend() != CassandraBackend {
		return
	}
	list, err := levelDBOnly("go")
	if err != nil {
		t.Fatal(err)
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	if why, ok := list[top]; ok {
		t.Skipf("LevelDB only (test/cassandra/leveldb-only): %s", why)
	}
}

// partitionerOf reads the Partitioner element of a storage-conf.xml. The
// config package cannot be used here: its own tests import testenv.
func partitionerOf(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Partitioner string `xml:"Partitioner"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if doc.Partitioner == "" {
		t.Fatalf("%s has no Partitioner: no test cluster can be chosen for it", path)
	}
	return strings.TrimSpace(doc.Partitioner)
}

// cassandraFlags are thriftd's flags to store config's data in the test
// cluster of its partitioner under a fresh prefix.
func cassandraFlags(t testing.TB, config string) []string {
	t.Helper()
	points := Cassandra(t, partitionerOf(t, config))
	return []string{"-cassandra", points, "-cassandra-prefix", CassandraPrefix(t)}
}
