package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// reference19 loads a fresh keyspace of the real Cassandra 1.2.19 node
// with every family of transfertest.Families19 and returns the node's
// address, the keyspace and its families. The keyspace is dropped when
// the test ends.
func reference19(t *testing.T, rows, width int) (string, string, []transfertest.Family19) {
	t.Helper()
	ref := testenv.Reference(t, "1.2", "random")
	ks := fmt.Sprintf("Copy19_%d", time.Now().UnixNano()%1e12)
	fams := transfertest.Families19(ks)
	c := transfertest.Dial19(t, ref)
	transfertest.CreateKeyspace19(t, c, ks, fams)
	t.Cleanup(func() {
		c := transfertest.Dial19(t, ref)
		if _, err := c.SystemDropKeyspace(context.Background(), ks); err != nil {
			t.Logf("dropping %s on %s: %v", ks, ref, err)
		}
	})
	for i, f := range fams {
		if f.IsCounter() {
			transfertest.LoadCounters(t, c, f, 5)
			continue
		}
		transfertest.Load19(t, c, f, rows, width, uint64(i))
	}
	return ref, ks, fams
}

// A keyspace of the real Cassandra 1.2.19 node, with every type of 1.2
// as comparator and validator, composites, super families, expiring
// columns and deletions, is copied into thriftd on LevelDB: the keyspace
// and families are created from the source's definitions, every live
// column arrives with its value and timestamp, expiring ones with what
// remains of their TTL, and the counter family is refused by name while
// the rest is copied.
func TestCopyFromCassandra12(t *testing.T) {
	t0 := time.Now()
	ref, ks, fams := reference19(t, 40, 12)
	dst := node19(t)
	dir := t.TempDir()
	_, errOut, code := tool(t, dir, "copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off", "--page-size", "7", "--page-rows", "9", "--batch-size", "20")
	if code != 1 || !strings.Contains(errOut, "counter column families of "+ks+" not copied: Counts") {
		t.Fatalf("copy: exit %d, want 1 naming the counter family: %s", code, errOut)
	}
	slack := int32(time.Since(t0)/time.Second) + 2
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	compareSchema(t, src, tgt, ks)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	expiring := 0
	for _, f := range fams {
		if f.IsCounter() {
			continue
		}
		want := transfertest.Dump19(t, src, f.Def.Name)
		if len(want) == 0 {
			t.Fatalf("%s: nothing was loaded into the source", f.Def.Name)
		}
		for _, c := range want {
			if c.TTL > 0 {
				expiring++
			}
		}
		transfertest.Same19(t, f.Def.Name, transfertest.Dump19(t, tgt, f.Def.Name), want, slack)
	}
	if expiring == 0 {
		t.Fatal("no expiring column was loaded")
	}
}

// node19 starts a thriftd on LevelDB that answers fresh framed
// connections in the 19.x API.
func node19(t *testing.T) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), "RandomPartitioner"), "-api", "auto")
	n.Start()
	return n
}

// compareSchema fails t unless the target has the source's keyspace
// with the same definitions of its families (every field but the id),
// the counter family apart.
func compareSchema(t *testing.T, src, tgt *transfertest.Client19, ks string) {
	t.Helper()
	ctx := context.Background()
	a, err := src.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tgt.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatalf("describe_keyspace %s on the target: %v", ks, err)
	}
	if a.StrategyClass != b.StrategyClass || !reflect.DeepEqual(a.StrategyOptions, b.StrategyOptions) {
		t.Errorf("keyspace %s: strategy %s %v on the target, %s %v on the source", ks, b.StrategyClass, b.StrategyOptions, a.StrategyClass, a.StrategyOptions)
	}
	got := map[string]*cassandra19.CfDef{}
	for _, d := range b.CfDefs {
		got[d.Name] = d
	}
	for _, d := range a.CfDefs {
		g, ok := got[d.Name]
		if strings.HasSuffix(d.GetDefaultValidationClass(), "CounterColumnType") {
			if ok {
				t.Errorf("the counter family %s was created on the target", d.Name)
			}
			continue
		}
		if !ok {
			t.Errorf("family %s is missing on the target", d.Name)
			continue
		}
		w, h := *d, *g
		w.ID, h.ID = nil, nil
		if !reflect.DeepEqual(w, h) {
			t.Errorf("family %s differs:\ntarget %+v\nsource %+v", d.Name, h, w)
		}
	}
}
