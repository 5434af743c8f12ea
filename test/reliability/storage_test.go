package reliability

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

var stdPath = &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}

// fill writes count keys prefix0000.. with random 200-byte values through one
// batch_mutate per 100 keys.
func fill(t *testing.T, c *client, prefix string, count int) {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{byte(len(prefix)), prefix[0]})
	for start := 0; start < count; start += 100 {
		rows := map[string]map[string][]*cassandra.Mutation{}
		for i := start; i < min(start+100, count); i++ {
			v := make([]byte, 200)
			rng.Read(v) // incompressible, so the tables are as large as the data
			rows[fmt.Sprintf("%s%04d", prefix, i)] = cosc("Standard1", &cassandra.Column{Name: []byte("c"), Value: v, Timestamp: 1})
		}
		if err := c.BatchMutate(ctx, ks1, rows, one); err != nil {
			t.Fatal(err)
		}
	}
}

// readable counts the keys prefix0000.. that read back intact.
func readable(t *testing.T, c *client, prefix string, count int) int {
	t.Helper()
	ok := 0
	for i := range count {
		got, err := c.Get(ctx, ks1, fmt.Sprintf("%s%04d", prefix, i), stdPath, one)
		if err == nil && len(got.Column.Value) == 200 {
			ok++
		}
	}
	return ok
}

// tables lists the data directory's table files, oldest first.
func tables(t *testing.T, dir string) []string {
	t.Helper()
	ts, err := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ts)
	return ts
}

// twoTables leaves n stopped, with keys a0000.. in one table file and
// b0000.. in a newer one (LevelDB writes its journal into a table when it
// opens a store).
func twoTables(t *testing.T, n *node, count int) (older, newer string) {
	for _, prefix := range []string{"a", "b"} {
		n.Start()
		fill(t, n.Client(true), prefix, count)
		n.Stop()
	}
	n.Start()
	n.Stop()
	ts := tables(t, n.Data)
	if len(ts) < 2 {
		t.Fatalf("want two table files, have %v", ts)
	}
	return ts[0], ts[len(ts)-1]
}

// refusesToStart checks that thriftd does not start and that its log
// says each of says (the cause, and the way out).
func refusesToStart(t *testing.T, n *node, says ...string) {
	t.Helper()
	if err := n.TryStart(); err == nil {
		n.Stop()
		t.Fatalf("thriftd started")
	}
	logs := n.Logs()
	for _, s := range says {
		if !strings.Contains(logs, s) {
			t.Errorf("start-up log does not say %q:\n%s", s, logs)
		}
	}
}

func repair(t *testing.T, n *node) {
	t.Helper()
	out, err := n.Run("-repair")
	if err != nil {
		t.Fatalf("thriftd -repair: %v\n%s", err, out)
	}
	t.Logf("thriftd -repair: %s", strings.TrimSpace(out))
}

func TestStorageFaults(t *testing.T) {
	const keys = 2000

	t.Run("directory in use", func(t *testing.T) {
		n := startNode(t, fixture(testConf))
		out, err := n.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("a second thriftd on the same data directory: %v\n%s", err, out)
		}
		if !strings.Contains(out, "data directory is in use by another process") || !strings.Contains(out, n.Data) {
			t.Errorf("the second thriftd does not say why it stopped:\n%s", out)
		}
		if _, err := n.Client(false).DescribeVersion(ctx); err != nil {
			t.Errorf("the first thriftd: %v", err)
		}
	})

	t.Run("truncated table", func(t *testing.T) {
		n := newNode(t, fixture(testConf))
		_, newer := twoTables(t, n, keys)
		fi, _ := os.Stat(newer)
		if err := os.Truncate(newer, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
		refusesToStart(t, n, "damaged", filepath.Base(newer), "thriftd -repair")
		repair(t, n)
		n.Start()
		c := n.Client(true)
		// The older table is intact: all of it is back. What the damaged
		// table held is lost (LevelDB cannot find the blocks of a table
		// whose index is gone).
		if got := readable(t, c, "a", keys); got != keys {
			t.Errorf("%d of %d keys of the intact table readable after repair", got, keys)
		}
		t.Logf("after repair: %d of %d keys of the truncated table readable", readable(t, c, "b", keys), keys)
		fill(t, c, "c", 100)
		if got := readable(t, c, "c", 100); got != 100 {
			t.Errorf("repaired store: %d of 100 new writes readable", got)
		}
	})

	t.Run("truncated table away from the metadata", func(t *testing.T) {
		// Enough data for several tables once compacted (a repair compacts
		// everything), so the last one holds no record read at start-up:
		// only the start-up check of every table file can notice it.
		n := startNode(t, fixture(testConf))
		c := n.Client(true)
		for _, p := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
			fill(t, c, p, 2000)
		}
		n.Stop()
		repair(t, n)
		ts := tables(t, n.Data)
		if len(ts) < 2 {
			t.Fatalf("want several tables after compaction, have %v", ts)
		}
		last := ts[len(ts)-1]
		if err := os.Truncate(last, 1000); err != nil {
			t.Fatal(err)
		}
		refusesToStart(t, n, "damaged", filepath.Base(last), "thriftd -repair")
	})

	t.Run("corrupted table block", func(t *testing.T) {
		n := newNode(t, fixture(testConf))
		_, newer := twoTables(t, n, keys)
		// Overwrite bytes in the middle of the newer table's data blocks:
		// the checksums catch it when the block is read.
		f, err := os.OpenFile(newer, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		f.WriteAt([]byte(strings.Repeat("\xde\xad", 50)), fi.Size()/3)
		f.Close()
		n.Start()
		c := n.Client(true)
		var ae thrift.TApplicationException
		damaged := 0
		for i := range keys {
			_, err := c.Get(ctx, ks1, fmt.Sprintf("b%04d", i), stdPath, one)
			if err == nil {
				continue
			}
			if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR {
				t.Fatalf("reading a damaged block: %v", err)
			}
			damaged++
			c = n.Client(true)
		}
		if damaged == 0 {
			t.Fatal("no read saw the damage")
		}
		if len(n.Records(map[string]string{"level": "ERROR", "msg": "internal error"})) == 0 {
			t.Error("reads of a damaged block are not logged as errors")
		}
		n.Stop()
		repair(t, n)
		n.Start()
		c = n.Client(true)
		a, b := readable(t, c, "a", keys), readable(t, c, "b", keys)
		t.Logf("%d reads failed on the damaged block; after repair %d of %d keys of the intact table and %d of %d of the damaged one are readable", damaged, a, keys, b, keys)
		if a != keys {
			t.Errorf("repair lost keys of the intact table: %d of %d", a, keys)
		}
		// Only the damaged block is lost: a 4 KiB block holds about 20 of
		// these rows; allow two blocks.
		if b < keys-2*damaged-40 {
			t.Errorf("repair kept only %d of %d keys of the damaged table, %d reads had failed", b, keys, damaged)
		}
	})

	t.Run("corrupted manifest", func(t *testing.T) {
		n := newNode(t, fixture(testConf))
		twoTables(t, n, keys)
		ms, _ := filepath.Glob(filepath.Join(n.Data, "MANIFEST-*"))
		if len(ms) != 1 {
			t.Fatalf("manifests: %v", ms)
		}
		if err := os.WriteFile(ms[0], []byte("this is not a manifest, it is damage"), 0o644); err != nil {
			t.Fatal(err)
		}
		refusesToStart(t, n, "damaged", "thriftd -repair")
		repair(t, n)
		n.Start()
		c := n.Client(false)
		for _, prefix := range []string{"a", "b"} {
			if got := readable(t, c, prefix, keys); got != keys {
				t.Errorf("after repairing the manifest %d of %d keys %s... readable", got, keys, prefix)
			}
		}
	})
}

// TestSchemaDrift: data written under one configuration is not served
// under a configuration that would misread it (spec 16.9); thriftd says
// what changed, and starts again under the original configuration.
func TestSchemaDrift(t *testing.T) {
	n := startNode(t, fixture(testConf))
	c := n.Client(true)
	if err := c.Insert(ctx, ks1, "k", &cassandra.ColumnPath{ColumnFamily: "StandardLong1", Column: long(7)}, []byte("v"), 1, one); err != nil {
		t.Fatal(err)
	}
	n.Stop()
	changes := []struct {
		name  string
		edits []string
		says  []string
	}{
		{"comparator", []string{`<ColumnFamily CompareWith="LongType" Name="StandardLong1"/>`, `<ColumnFamily CompareWith="UTF8Type" Name="StandardLong1"/>`},
			[]string{"Keyspace1.StandardLong1", "CompareWith", "LongType", "UTF8Type"}},
		{"subcomparator", []string{`CompareSubcolumnsWith="UTF8Type" Name="Super4"`, `CompareSubcolumnsWith="BytesType" Name="Super4"`},
			[]string{"Keyspace1.Super4", "CompareSubcolumnsWith", "UTF8Type", "BytesType"}},
		{"column type", []string{`<ColumnFamily ColumnType="Super" CompareSubcolumnsWith="LongType" Name="Super2"/>`, `<ColumnFamily Name="Super2"/>`},
			[]string{"Keyspace1.Super2", "Super", "Standard"}},
		{"partitioner", []string{"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner", "org.apache.cassandra.dht.RandomPartitioner"},
			[]string{"CollatingOrderPreservingPartitioner", "RandomPartitioner", "Partitioner"}},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			drifted := newNode(t, writeConfig(t, testConf, ch.edits...))
			drifted.Data = n.Data
			refusesToStart(t, drifted, ch.says...)
		})
	}
	// Nothing was changed by the refused starts.
	n.Start()
	got, err := n.Client(false).Get(ctx, ks1, "k", &cassandra.ColumnPath{ColumnFamily: "StandardLong1", Column: long(7)}, one)
	if err != nil || string(got.Column.Value) != "v" {
		t.Errorf("after the refused starts: %v %v", got, err)
	}
}

// smallDisk mounts a tmpfs of size bytes for the test, or skips the test
// where mounting is not permitted.
func smallDisk(t *testing.T, size int) string {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// TestDiskFull fills the disk under thriftd: writes fail with an error the
// client sees, thriftd keeps serving reads, and writes succeed again once
// space is freed, without a restart.
func TestDiskFull(t *testing.T) {
	disk := smallDisk(t, 32<<20)
	// Ballast to delete later, so that space comes back: more than the
	// journal that fills the rest, since reopening writes it into a table.
	ballast := filepath.Join(disk, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 20<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	n := newNode(t, fixture(testConf))
	n.Data = filepath.Join(disk, "data")
	n.Start()
	c := n.Client(true)
	p := func(i int) *cassandra.ColumnPath {
		return &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte(fmt.Sprint(i))}
	}
	rng := rand.NewChaCha8([32]byte{1})
	val := func() []byte {
		v := make([]byte, 256<<10)
		rng.Read(v)
		return v
	}
	var ae thrift.TApplicationException
	written := 0
	for ; ; written++ {
		err := c.Insert(ctx, ks1, "k", p(written), val(), 1, one)
		if err == nil {
			continue
		}
		if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR {
			t.Fatalf("write %d on a full disk: %v (%T), want TApplicationException INTERNAL_ERROR", written, err, err)
		}
		t.Logf("write %d on a full disk: %v", written, err)
		break
	}
	if written == 0 {
		t.Fatal("not one write fitted")
	}
	n.WaitLog(t, 5*time.Second, map[string]string{"level": "ERROR", "msg": "internal error", "method": "insert"})
	// Still serving: a read of what was acknowledged, on a new connection.
	c = n.Client(false)
	if got, err := c.Get(ctx, ks1, "k", p(0), one); err != nil || len(got.Column.Value) != 256<<10 {
		t.Fatalf("read on a full disk: %v", err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	// Space is back: writes succeed again, without a restart.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := c.Insert(ctx, ks1, "k2", p(0), []byte("after"), 1, one)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes still fail 2 minutes after space came back: %v\nstore log: %v", err, n.Records(map[string]string{"dir": n.Data}))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i := range written {
		if _, err := c.Get(ctx, ks1, "k", p(i), one); err != nil {
			t.Errorf("acknowledged write %d lost after the disk filled: %v", i, err)
		}
	}
	// And the store is sound after a restart.
	n.Stop()
	n.Start()
	got, err := n.Client(true).Get(ctx, ks1, "k2", p(0), one)
	if err != nil || string(got.Column.Value) != "after" {
		t.Errorf("after restart: %v %v", got, err)
	}
}
