package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/transfer"
)

// verify after a copy from the real 3.11.19 node, over every Thrift-era
// family (every type, super, counters, expiring columns), finds nothing;
// then a changed cell and a row only on the target are each found, with
// their keys, and the exit status is 1.
func TestVerifyAfterCopyFrom311(t *testing.T) {
	ref, ks, _ := loadReference(t, "3.11", 12, 4)
	dst := node19(t)
	dir := t.TempDir()
	if _, errOut, code := tool(t, dir, "copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off"); code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	out, errOut, code := tool(t, dir, "verify", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "-o", "json")
	if code != 0 {
		t.Fatalf("verify after a copy: exit %d: %s%s", code, out, errOut)
	}
	var sum transfer.VerifySummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rows := int64(0)
	for _, f := range sum.Families {
		rows += f.Rows
	}
	if sum.Differences != 0 || rows == 0 {
		t.Fatalf("verify after a copy: %s", out)
	}

	ctx := context.Background()
	c := transfertest.Dial19(t, dst.Addr)
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "Typed"}
	page, err := c.GetRangeSlices(ctx, parent, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1}},
		&cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 1}, cassandra19.ConsistencyLevel_ONE)
	if err != nil || len(page) == 0 {
		t.Fatalf("a row of Typed on the target: %v %v", page, err)
	}
	changed := page[0].Key
	ts := time.Now().UnixMicro()
	for _, key := range [][]byte{changed, []byte("only-on-target")} {
		if err := c.Insert(ctx, key, parent, &cassandra19.Column{Name: []byte("extra"), Value: []byte("x"), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE); err != nil {
			t.Fatal(err)
		}
	}
	out, _, code = tool(t, dir, "verify", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--cf", "Typed")
	if code != 1 {
		t.Fatalf("verify with two rows changed: exit %d, want 1: %s", code, out)
	}
	for _, want := range []string{"1 differ, 0 only on the origin, 1 only on the target",
		hex.EncodeToString(changed) + ": origin has ", hex.EncodeToString([]byte("only-on-target")) + ": only on the target"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify's report lacks %q:\n%s", want, out)
		}
	}
}
