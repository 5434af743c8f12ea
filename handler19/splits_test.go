package handler19

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
)

// TestDescribeSplitsExProperties checks describe_splits_ex's answers over
// families of many sizes, beside a bigger family whose rows must not
// count: the splits cover the range asked about once, in ring order;
// there are about as many as the family's rows over keys_per_split (at
// least 4 index samples each, as 2.1.21 cut); each one's row count is
// within two index intervals of the rows it holds.
func TestDescribeSplitsExProperties(t *testing.T) {
	ctx := context.Background()
	s, ldb := emptyStore(t)
	cat, err := catalog.New(ctx, ldb, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	c := New(Options{Schema: cat.Current, Store: ldb, Changer: cat, ParseType: marshal.Parse, Timeout: time.Minute}).Connection()
	ks := &cassandra19.KsDef{Name: "K", StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"C", "D"} {
		cf := cassandra19.NewCfDef()
		cf.Keyspace, cf.Name, cf.ComparatorType = "K", name, "UTF8Type"
		if _, err := c.SystemAddColumnFamily(ctx, cf); err != nil {
			t.Fatal(err)
		}
	}
	part, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	ring := new(big.Int).Lsh(big.NewInt(1), 127)
	var tokens []*big.Int // of the rows of C written so far
	written := 0
	write := func(n int) {
		for ; written < n; written++ {
			key := fmt.Sprintf("row%05d", written)
			muts := map[string]map[string][]*cassandra19.Mutation{key: {
				"C": {colMutation("c", "v")},
				"D": {colMutation("c", "v")},
			}}
			for j := 0; j < 3; j++ {
				muts[fmt.Sprintf("other%05d-%d", written, j)] = map[string][]*cassandra19.Mutation{"D": {colMutation("c", "v")}}
			}
			if err := c.BatchMutate(ctx, muts, cassandra19.ConsistencyLevel_ONE); err != nil {
				t.Fatal(err)
			}
			tok, _ := new(big.Int).SetString(part.TokenString(part.Token(key)), 10)
			tokens = append(tokens, tok)
		}
	}
	// inRange reports whether tok lies in (left, right] of the ring;
	// left == right is the whole ring.
	inRange := func(left, right, tok *big.Int) bool {
		if left.Cmp(right) < 0 {
			return tok.Cmp(left) > 0 && tok.Cmp(right) <= 0
		}
		return tok.Cmp(left) > 0 || tok.Cmp(right) <= 0
	}
	count := func(left, right *big.Int) int {
		n := 0
		for _, tok := range tokens {
			if inRange(left, right, tok) {
				n++
			}
		}
		return n
	}
	third := new(big.Int).Div(ring, big.NewInt(3))
	twoThirds := new(big.Int).Mul(third, big.NewInt(2))
	ranges := [][2]*big.Int{
		{big.NewInt(0), big.NewInt(0)}, // the whole ring
		{third, twoThirds},
		{twoThirds, third}, // wrapping past the ring's end
	}
	for _, n := range []int{0, 100, 400, 1000, 3000} {
		write(n)
		for _, r := range ranges {
			rows := count(r[0], r[1])
			for _, kps := range []int32{8, 64, 128, 512, 1000, 65536} {
				name := fmt.Sprintf("%d rows, (%s, %s], keys_per_split %d", n, r[0], r[1], kps)
				splits, err := c.DescribeSplitsEx(ctx, "C", r[0].String(), r[1].String(), kps)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(splits) == 0 || splits[0].StartToken != r[0].String() || splits[len(splits)-1].EndToken != r[1].String() {
					t.Fatalf("%s: %d splits do not run from the range's start to its end: %v", name, len(splits), splits)
				}
				sum := 0
				for i, s := range splits {
					if i > 0 && s.StartToken != splits[i-1].EndToken {
						t.Fatalf("%s: split %d starts at %s, after %s: a gap or an overlap", name, i, s.StartToken, splits[i-1].EndToken)
					}
					left, _ := new(big.Int).SetString(s.StartToken, 10)
					right, _ := new(big.Int).SetString(s.EndToken, 10)
					if len(splits) > 1 && left.Cmp(right) == 0 {
						t.Fatalf("%s: split %d is empty or the whole ring", name, i)
					}
					held := count(left, right)
					sum += held
					if s.RowCount < indexInterval || s.RowCount%indexInterval != 0 || abs(int(s.RowCount)-held) > 2*indexInterval {
						t.Errorf("%s: split %d holds %d rows, counted %d", name, i, held, s.RowCount)
					}
				}
				if sum != rows {
					t.Errorf("%s: the splits hold %d rows, the range %d", name, sum, rows)
				}
				// About keys_per_split rows each, never less than 4
				// samples' worth: no more splits than that allows, and
				// more than one once the rows fill two such splits
				// with a margin for the samples' rounding.
				size := max(int(kps), 4*indexInterval)
				if most := max(1, rows/size+2); len(splits) > most {
					t.Errorf("%s: %d splits for %d rows, at most %d expected", name, len(splits), rows, most)
				}
				if rows >= 2*size+4*indexInterval && len(splits) < 2 {
					t.Errorf("%s: %d rows in %d split", name, rows, len(splits))
				}
			}
		}
	}
}

func colMutation(name, value string) *cassandra19.Mutation {
	col := cassandra19.NewColumn()
	col.Name, col.Value = []byte(name), []byte(value)
	ts := int64(1)
	col.Timestamp = &ts
	return &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col}}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
