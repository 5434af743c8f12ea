package ops

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// restoreScript is the restore procedure of docs/thriftd-tool.md, with
// DATA the data directory and NAME the snapshot, run once thriftd stopped.
const restoreScript = `set -e
mv "$DATA" "$DATA.old"
mkdir "$DATA"
cp -a "$DATA.old/snapshots/$NAME/." "$DATA/"
`

// TestSnapshotRestore writes, snapshots while a writer keeps writing,
// writes and deletes more, stops, restores by the documented procedure
// and starts: exactly what was written before the snapshot is back.
func TestSnapshotRestore(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	value := strings.Repeat("v", 200)
	// Some rows in tables, some only in the journal.
	for i := range 300 {
		insert(t, c, fmt.Sprint("pre", i), "c", value+strconv.Itoa(i), 1)
	}
	n.mustTool(t, "flush")
	for i := 300; i < 500; i++ {
		insert(t, c, fmt.Sprint("pre", i), "c", value+strconv.Itoa(i), 1)
	}

	// A writer keeps writing two-column rows while the snapshot is taken.
	// It owns written and writerErr until exited is closed.
	stop, exited := make(chan struct{}), make(chan struct{})
	var (
		written   int
		writerErr error
	)
	go func() {
		defer close(exited)
		w := n.Client(true)
		for i := 0; ; i++ {
			select {
			case <-stop:
				written = i
				return
			default:
			}
			ms := []*cassandra.Mutation{}
			for _, col := range []string{"a", "b"} {
				ms = append(ms, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{
					Column: &cassandra.Column{Name: []byte(col), Value: []byte(value), Timestamp: 1}}})
			}
			err := w.BatchMutate(ctx, ks, map[string]map[string][]*cassandra.Mutation{fmt.Sprint("during", i): {"Standard1": ms}}, cassandra.ConsistencyLevel_ONE)
			if err != nil {
				written, writerErr = i, err
				return
			}
		}
	}()
	stopWriter := sync.OnceFunc(func() {
		close(stop)
		<-exited
	})
	defer stopWriter() // on a failure before the snapshot
	// Let the writer get going: 20 of its rows before the snapshot. The
	// bound is generous because a machine busy with other tests took more
	// than 30 s once; each poll reads every row, so it polls gently.
	deadline := time.Now().Add(2 * time.Minute)
	for have := len(rows(t, c)); have < 520; have = len(rows(t, c)) {
		select {
		case <-exited:
			t.Fatalf("the writer stopped after %d rows, before the snapshot: %v", written, writerErr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer had not written 20 rows within 2m: %d rows in all, want 520", have)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := n.mustTool(t, "snapshot", "snap1")
	t.Log(strings.TrimSpace(out))
	stopWriter()
	if writerErr != nil {
		t.Errorf("write during the snapshot (row %d): %v", written, writerErr)
	}

	// After the snapshot: more writes, overwrites and deletions.
	for i := range 100 {
		insert(t, c, fmt.Sprint("post", i), "c", value, 1)
	}
	for i := range 50 {
		remove(t, c, fmt.Sprint("pre", i), 2)
	}
	insert(t, c, "pre100", "c", "overwritten", 3)
	n.mustTool(t, "flush")
	n.mustTool(t, "compact")
	n.Stop()

	restore := exec.Command("sh", "-c", restoreScript)
	restore.Env = append(restore.Environ(), "DATA="+n.Data, "NAME=snap1")
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	n.start(t)
	got := rows(t, n.Client(true))

	for i := range 500 {
		key := fmt.Sprint("pre", i)
		if v := got[key]["c"]; v != value+strconv.Itoa(i) {
			t.Errorf("%s after the restore: %q, want its value before the snapshot", key, v)
		}
		delete(got, key)
	}
	during := 0
	for during < written && got[fmt.Sprint("during", during)] != nil {
		during++
	}
	if during == 0 {
		t.Errorf("no row written before the snapshot by the writer is back (it wrote %d)", written)
	}
	for i := range written {
		key := fmt.Sprint("during", i)
		r, ok := got[key]
		if i < during && (len(r) != 2) {
			t.Errorf("%s came back with %d of its 2 columns", key, len(r))
		}
		if i >= during && ok {
			t.Errorf("%s is back but %s, written before it, is not", key, fmt.Sprint("during", during))
		}
		delete(got, key)
	}
	for key := range got {
		t.Errorf("%s is back, but was written after the snapshot", key)
	}
	t.Logf("the writer wrote %d rows, %d of them before the snapshot", written, during)
}
