package diff19

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

// TestSplitsAgainst21 compares describe_splits_ex and describe_splits,
// which Hadoop's ColumnFamilyInputFormat cuts a job with, with Cassandra
// 2.1.21 once 2.1.21 holds the rows on disk: 2.1.21 cuts at its index
// samples (an sstable's first row and every 128th after it), thriftd at
// the same rows of the family (docs/api19.md, "The ring"), so that from
// the ring's start the answers are the same, tokens and row counts. A
// bigger family beside it must not count; splits of 8 to 65,536 rows are
// asked for. While 2.1.21 holds the rows in memtables it answers one
// split of 128 rows, so the test first has it flush the family (a
// memtable flush period set once the rows are written, so that each
// family is one sstable) and waits for that.
func TestSplitsAgainst21(t *testing.T) {
	bytesType := "org.apache.cassandra.db.marshal.BytesType"
	d := setup21With(t, "Splits_", []family21{
		{name: "C", typ: "Standard", comparator: bytesType},
		{name: "D", typ: "Standard", comparator: bytesType},
	})
	d.setKeyspace(d.ks)

	write := func(cf string, rows, batch int) {
		for i := 0; i < rows; i += batch {
			muts := map[string]map[string][]*c19.Mutation{}
			for j := i; j < min(rows, i+batch); j++ {
				muts[fmt.Sprintf("%s%05d", cf, j)] = map[string][]*c19.Mutation{cf: {ins(col("c", "v"))}}
			}
			d.call(fmt.Sprintf("batch_mutate of %s's rows from %d", cf, i), nil, func(cl *client) (any, error) {
				return void(cl.BatchMutate(ctx, muts, one))
			})
		}
	}
	write("C", 1000, 250)
	write("D", 3000, 500)

	// 2.1.21 flushes the families, each into one sstable.
	ksDef, err := d.ref.c.DescribeKeyspace(ctx, d.ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range ksDef.CfDefs {
		period := int32(1000)
		cf.MemtableFlushPeriodInMs = &period
		if _, err := d.ref.c.SystemUpdateColumnFamily(ctx, cf); err != nil {
			t.Fatalf("2.1.21: setting %s's memtable flush period: %v", cf.Name, err)
		}
	}
	for _, cf := range []string{"C", "D"} {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			s, err := d.ref.c.DescribeSplitsEx(ctx, cf, "0", "0", 65536)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 1 || s[0].RowCount != 128 {
				break // estimated from the sstable's samples
			}
			if time.Now().After(deadline) {
				t.Fatalf("2.1.21 did not flush %s within 3 minutes: describe_splits_ex still answers %v", cf, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	quarter := new(big.Int).Lsh(big.NewInt(1), 125).String()
	for _, cf := range []string{"C", "D"} {
		for _, kps := range []int32{8, 64, 128, 256, 512, 1000, 65536} {
			d.call(fmt.Sprintf("describe_splits_ex of %s, keys_per_split %d", cf, kps), nil, func(cl *client) (any, error) {
				return cl.DescribeSplitsEx(ctx, cf, "0", "0", kps)
			})
			d.call(fmt.Sprintf("describe_splits_ex of %s over the ring's first quarter, keys_per_split %d", cf, kps), nil, func(cl *client) (any, error) {
				return cl.DescribeSplitsEx(ctx, cf, "0", quarter, kps)
			})
		}
		d.call("describe_splits of "+cf, nil, func(cl *client) (any, error) {
			return cl.DescribeSplits(ctx, cf, "0", "0", 128)
		})
	}
	// The comparison means something only if 2.1.21 cut the ring.
	if s, err := d.ref.c.DescribeSplitsEx(ctx, "D", "0", "0", 256); err != nil || len(s) < 2 {
		t.Errorf("2.1.21 answered %v (%v) for 3,000 rows in splits of 256, not several splits", s, err)
	}
}
