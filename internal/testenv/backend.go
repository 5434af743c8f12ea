package testenv

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
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

// builtinPartitioner is the partitioner of a thriftd.yaml that names no
// storage-conf.xml (config.Builtin; the config package cannot be imported
// here: its own tests import testenv).
const builtinPartitioner = "org.apache.cassandra.dht.RandomPartitioner"

// partitionerOf reads the Partitioner element of a storage-conf.xml, or of
// the storage-conf.xml a thriftd.yaml names (storage_conf, by default
// storage-conf.xml beside it; "" for none, the built-in configuration).
func partitionerOf(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimSpace(string(b)), "<") {
		var y struct {
			StorageConf *string `yaml:"storage_conf"`
		}
		if err := yaml.Unmarshal(b, &y); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		conf := "storage-conf.xml"
		if y.StorageConf != nil {
			conf = *y.StorageConf
		}
		if conf == "" {
			return builtinPartitioner
		}
		if !filepath.IsAbs(conf) {
			conf = filepath.Join(filepath.Dir(path), conf)
		}
		return partitionerOf(t, conf)
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

// prefixes holds the keyspace prefixes tests have finished with, by
// cluster and configuration, for the next test on the same configuration:
// creating a configuration's keyspaces and tables takes seconds on
// Cassandra, emptying them a fraction of one.
var prefixes = struct {
	sync.Mutex
	free map[string][]string
	all  map[string][]string // every prefix handed out, by contact points
}{free: map[string][]string{}, all: map[string][]string{}}

// cassandraFlags are thriftd's flags to store config's data in the test
// cluster of its partitioner under a prefix of the test's own: one a
// finished test used on the same configuration, emptied, or else a fresh
// one. The prefix returns to the pool when the test ends.
func cassandraFlags(t testing.TB, config string) []string {
	t.Helper()
	points := Cassandra(t, partitionerOf(t, config))
	text, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(text)
	key := points + " " + hex.EncodeToString(sum[:])
	prefixes.Lock()
	var prefix string
	if free := prefixes.free[key]; len(free) > 0 {
		prefix = free[len(free)-1]
		prefixes.free[key] = free[:len(free)-1]
	}
	prefixes.Unlock()
	if prefix != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := TruncatePrefix(ctx, points, prefix); err != nil {
			t.Fatalf("emptying keyspace prefix %s for reuse: %v", prefix, err)
		}
	} else {
		prefix = CassandraPrefix(t)
		prefixes.Lock()
		prefixes.all[points] = append(prefixes.all[points], prefix)
		prefixes.Unlock()
	}
	// Registered before the node's own cleanup, so it runs after thriftd
	// has stopped.
	t.Cleanup(func() {
		prefixes.Lock()
		prefixes.free[key] = append(prefixes.free[key], prefix)
		prefixes.Unlock()
	})
	return []string{"-cassandra", points, "-cassandra-prefix", prefix}
}

// dropPrefixes drops the keyspaces of every prefix this process handed
// out, unless THRIFTD_CASSANDRA_KEEP_KEYSPACES=1 (test/run-all sets it: it
// deletes the nodes' data when it ends).
func dropPrefixes() error {
	if os.Getenv("THRIFTD_CASSANDRA_KEEP_KEYSPACES") == "1" {
		return nil
	}
	prefixes.Lock()
	defer prefixes.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for points, ps := range prefixes.all {
		for _, p := range ps {
			if _, err := DropPrefix(ctx, points, p); err != nil {
				return fmt.Errorf("dropping the keyspaces of prefix %s: %w", p, err)
			}
		}
	}
	prefixes.all = map[string][]string{}
	prefixes.free = map[string][]string{}
	return nil
}
