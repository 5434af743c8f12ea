package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// TestRepositoryDefaultConfig loads the storage-conf.xml thriftd ships
// with and checks it is the stock 0.6 schema with thriftd's local paths.
func TestRepositoryDefaultConfig(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(), "storage-conf.xml")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	stock, err := Load(fixture(t, "storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Keyspaces (as in stock 0.6)", c.Keyspaces, stock.Keyspaces)
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"ClusterName", c.ClusterName, "Test Cluster"},
		{"Partitioner", c.Partitioner, "org.apache.cassandra.dht.RandomPartitioner"},
		{"Authenticator", c.Authenticator, "org.apache.cassandra.auth.AllowAllAuthenticator"},
		{"ThriftAddress", c.ThriftAddress, "localhost"},
		{"ThriftPort", c.ThriftPort, 9160},
		{"ThriftFramedTransport", c.ThriftFramedTransport, false},
		{"CommitLogSync", c.CommitLogSync, "periodic"},
		{"CommitLogSyncPeriodInMS", c.CommitLogSyncPeriodInMS, 10000},
		{"GCGraceSeconds", c.GCGraceSeconds, 864000},
		{"DataFileDirectories", c.DataFileDirectories, []string{"var/data"}},
		{"CommitLogDirectory", c.CommitLogDirectory, "var/commitlog"},
		{"SavedCachesDirectory", c.SavedCachesDirectory, "var/saved_caches"},
		{"InitialToken", c.InitialToken, ""},
		{"Seeds", c.Seeds, []string{"127.0.0.1"}},
		{"RpcTimeoutInMillis", c.RpcTimeoutInMillis, 10000},
		{"Ignored", c.Ignored, []string(nil)},
		{"Warnings", c.Warnings, []string(nil)},
	} {
		check(t, f.name, f.got, f.want)
	}
	want := DefaultServer()
	want.PasswdFile = filepath.Join(testenv.RepoRoot(), "passwd.properties")
	want.AccessFile = filepath.Join(testenv.RepoRoot(), "access.properties")
	check(t, "Server", c.Server, want)

	// Every stock 0.6 element is present (uncommented).
	for _, name := range topLevelNames(t, fixture(t, "storage-conf-0.6-default.xml")) {
		if !strings.Contains(string(c.Text), "\n  <"+name+">") {
			t.Errorf("element %s of the stock configuration is missing", name)
		}
	}
}

// TestRepositoryDefaultConfigDocumentedDefaults enables every element the
// file shows commented out and checks that the values it documents are
// the defaults.
func TestRepositoryDefaultConfigDocumentedDefaults(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(), "storage-conf.xml")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	commented := regexp.MustCompile(`(?m)^  <(ThriftMaxMessageLengthInMB|ThriftMaxConnections|ThriftIdleTimeoutInSeconds|ThriftRequestTimeoutInSeconds|PhiConvictThreshold|SnapshotBeforeCompaction)>[^<]*</\w+>$`)
	enabled := commented.FindAllString(string(text), -1)
	if len(enabled) != 6 {
		t.Fatalf("found %d commented-out elements, want 6: %q", len(enabled), enabled)
	}
	plain, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(strings.Replace(string(text), "</Storage>", strings.Join(enabled, "\n")+"\n</Storage>", 1)), path)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Server", c.Server, plain.Server)
	check(t, "PhiConvictThreshold", c.PhiConvictThreshold, plain.PhiConvictThreshold)
	check(t, "SnapshotBeforeCompaction", c.SnapshotBeforeCompaction, plain.SnapshotBeforeCompaction)
	check(t, "Warnings", c.Warnings, []string(nil))
}

func topLevelNames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range root.children() {
		names = append(names, e.name)
	}
	return names
}
