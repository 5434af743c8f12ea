package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/engine"
)

func printed(t *testing.T, json bool, f func(Printer) error) string {
	t.Helper()
	var b strings.Builder
	if err := f(Printer{W: &b, JSON: json}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The expected texts are nodetool 0.6's shapes, written out by hand.
func TestText(t *testing.T) {
	info := admin.Info{Token: "1234", Load: "1.5 KB", GenerationNo: 1700000000, UptimeSeconds: 42, HeapUsedMB: 12.345, HeapMaxMB: 64}
	if got, want := printed(t, false, func(p Printer) error { return p.Info(info) }),
		"1234\nLoad             : 1.5 KB\nGeneration No    : 1700000000\nUptime (seconds) : 42\nHeap Memory (MB) : 12.35 / 64.00\n"; got != want {
		t.Errorf("info:\n%q\nwant\n%q", got, want)
	}

	ring := []admin.RingEntry{{Address: "127.0.0.1", Status: "Up", Load: "1.5 KB", Owns: 100, Token: "1234"}}
	if got, want := printed(t, false, func(p Printer) error { return p.Ring(ring) }),
		"Address       Status     Load          Owns    Range                                      Ring\n"+
			"127.0.0.1     Up         1.5 KB        100.00% 1234                                       |<--|\n"; got != want {
		t.Errorf("ring:\n%s\nwant\n%s", got, want)
	}

	pools := []admin.Pool{{Name: "get_slice", Active: 1, Completed: 1234567, Errors: 3, LatencyMs: 0.25}}
	if got, want := printed(t, false, func(p Printer) error { return p.TPStats(pools) }),
		"Pool Name                    Active   Pending      Completed    Errors   Latency (ms)\n"+
			"get_slice                         1         0        1234567         3          0.250\n"; got != want {
		t.Errorf("tpstats:\n%s\nwant\n%s", got, want)
	}

	ks := []admin.KeyspaceStats{{Name: "K", WriteCount: 2, WriteLatencyMs: 0.5, ColumnFamilies: []admin.FamilyStats{
		{Name: "C", SSTableCount: 3, SpaceUsedLive: 100, SpaceUsedTotal: 100, WriteCount: 2, WriteLatencyMs: 0.5},
	}}}
	want := "Keyspace: K\n\tRead Count: 0\n\tRead Latency: NaN ms.\n\tWrite Count: 2\n\tWrite Latency: 0.500 ms.\n\tPending Tasks: 0\n" +
		"\t\tColumn Family: C\n\t\tSSTable count: 3\n\t\tSpace used (live): 100\n\t\tSpace used (total): 100\n" +
		"\t\tMemtable Columns Count: 0\n\t\tMemtable Data Size: 0\n\t\tMemtable Switch Count: 0\n" +
		"\t\tRead Count: 0\n\t\tRead Latency: NaN ms.\n\t\tWrite Count: 2\n\t\tWrite Latency: 0.500 ms.\n\t\tPending Tasks: 0\n" +
		"\t\tKey cache: disabled\n\t\tRow cache: disabled\n" +
		"\t\tCompacted row minimum size: 0\n\t\tCompacted row maximum size: 0\n\t\tCompacted row mean size: 0\n\n----------------\n"
	if got := printed(t, false, func(p Printer) error { return p.CFStats(ks) }); got != want {
		t.Errorf("cfstats:\n%q\nwant\n%q", got, want)
	}

	for _, c := range []struct {
		d    admin.Done
		want string
	}{
		{admin.Done{Command: "flush", Took: 1500 * time.Microsecond}, "Flushed the memtable in 2ms\n"},
		{admin.Done{Command: "compact", Keyspace: "K", Family: "C", Took: 300 * time.Microsecond}, "Compacted column family K.C in 300µs\n"},
		{admin.Done{Command: "compact"}, "Compacted all keyspaces in 0s\n"},
		{admin.Done{Command: "clearsnapshot", Removed: []string{"a", "b"}}, "Removed snapshots: a, b\n"},
		{admin.Done{Command: "clearsnapshot"}, "No snapshots to remove\n"},
		{admin.Done{Command: "snapshot", Snapshot: &engine.SnapshotInfo{Name: "s", Dir: "/d/snapshots/s", Files: 4, Bytes: 2048, Paused: 3 * time.Millisecond}},
			"Snapshot s taken in /d/snapshots/s: 4 files, 2 KB; calls paused 3ms\n"},
	} {
		if got := printed(t, false, func(p Printer) error { return p.Done(c.d) }); got != c.want {
			t.Errorf("%s: %q, want %q", c.d.Command, got, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	pools := []admin.Pool{{Name: "insert", Completed: 7, LatencyMs: 1.5}}
	out := printed(t, true, func(p Printer) error { return p.TPStats(pools) })
	var back []admin.Pool
	if err := json.Unmarshal([]byte(out), &back); err != nil || len(back) != 1 || back[0] != pools[0] {
		t.Errorf("tpstats JSON %s: %+v %v", out, back, err)
	}
	ks := []admin.KeyspaceStats{{Name: "K"}}
	out = printed(t, true, func(p Printer) error { return p.CFStats(ks) })
	if strings.Contains(out, "NaN") || !strings.Contains(out, `"read_latency_ms": 0`) {
		t.Errorf("cfstats JSON: %s", out)
	}
}
