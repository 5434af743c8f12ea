package transfer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// VerifySummary is what Verify found, per column family and in all.
type VerifySummary struct {
	Keyspace string `json:"keyspace"`
	// Sample is the fraction of rows compared (1: every row).
	Sample   float64               `json:"sample"`
	Families []VerifyFamilySummary `json:"column_families"`
	// Differences is the number of rows that differ in all.
	Differences int           `json:"differences"`
	Elapsed     time.Duration `json:"elapsed_ns"`
}

// VerifyFamilySummary counts one column family's rows.
type VerifyFamilySummary struct {
	Name string `json:"name"`
	// Rows is the number of origin rows compared; Columns their columns
	// (a super column's subcolumns each).
	Rows    int64 `json:"rows"`
	Columns int64 `json:"columns"`
	// Differ are rows both hold, with different columns; OnlyOrigin and
	// OnlyTarget rows one of them lacks.
	Differ     int64 `json:"rows_differ"`
	OnlyOrigin int64 `json:"only_on_origin"`
	OnlyTarget int64 `json:"only_on_target"`
	// Keys are the first MaxKeys keys that differ (hex), each with how.
	Keys []string `json:"keys,omitempty"`
}

// maxVerifyKeys is how many differing keys a family's summary lists.
const maxVerifyKeys = 100

// Verify compares a keyspace on two servers of the 19.x or 20.x API (a
// Cassandra 0.7-3.11 origin and thriftd, or two thriftd) row by row: every
// origin row (or a sample, a fraction of the keys chosen by their hash,
// the same on every run) is read from both and compared column by column
// (name, value, timestamp, whether it expires: a copied column carries
// the TTL that remained); then every target row is checked to exist on
// the origin. A row is held in memory while it is compared; the keys seen
// take 8 bytes each.
func Verify(stop context.Context, origin, target Endpoint, o Options, sample float64) (*VerifySummary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if sample <= 0 || sample > 1 {
		return nil, fmt.Errorf("sample: want a fraction above 0 and at most 1, not %v", sample)
	}
	sum := &VerifySummary{Keyspace: o.Keyspace, Sample: sample}
	defer func() { sum.Elapsed = time.Since(t0) }()
	ctx := context.Background()
	src, err := dial19(ctx, origin, "")
	if err != nil {
		return sum, err
	}
	defer src.Close()
	ks, err := src.DescribeKeyspace(ctx, o.Keyspace)
	if err != nil {
		var nf *cassandra19.NotFoundException
		if errors.As(err, &nf) {
			return sum, fmt.Errorf("keyspace %s does not exist on %s", o.Keyspace, origin.Addr)
		}
		return sum, fmt.Errorf("describe_keyspace %s on %s: %w", o.Keyspace, origin.Addr, describeErr19(err))
	}
	fams, err := choose19(ks, o.ColumnFamilies, origin.Addr)
	if err != nil {
		return sum, err
	}
	if err := src.SetKeyspace(ctx, o.Keyspace); err != nil {
		return sum, fmt.Errorf("set_keyspace %s on %s: %w", o.Keyspace, origin.Addr, describeErr19(err))
	}
	dst, err := dial19(ctx, target, o.Keyspace)
	if err != nil {
		return sum, err
	}
	defer dst.Close()
	for _, f := range fams {
		fs := VerifyFamilySummary{Name: f.def.Name}
		seen := map[uint64]bool{}
		in := func(key []byte) bool {
			h := fnv.New64a()
			h.Write(key)
			v := h.Sum64()
			return sample >= 1 || float64(v%1_000_000) < sample*1_000_000
		}
		note := func(key []byte, how string) {
			if len(fs.Keys) < maxVerifyKeys {
				fs.Keys = append(fs.Keys, hex.EncodeToString(key)+": "+how)
			}
		}
		// Every origin row against the target's.
		err := scan19(stop, src, &o, f, nil, false, &collectSink{onRow: func(key []byte, items []*cassandra19.ColumnOrSuperColumn) error {
			if !in(key) {
				return nil
			}
			seen[keyHash(key)] = true
			fs.Rows++
			want := canonical(items)
			fs.Columns += int64(len(want))
			got, err := wholeRow19(ctx, dst, &o, f, key)
			if err != nil {
				return err
			}
			have := canonical(got)
			switch {
			case len(have) == 0:
				fs.OnlyOrigin++
				note(key, "only on the origin")
			case !slices.Equal(want, have):
				fs.Differ++
				note(key, firstDifference(want, have))
			}
			return nil
		}})
		if err != nil {
			return sum, err
		}
		// Rows only the target holds.
		err = scan19(stop, dst, &o, f, nil, false, &collectSink{onRow: func(key []byte, items []*cassandra19.ColumnOrSuperColumn) error {
			if !in(key) || seen[keyHash(key)] {
				return nil
			}
			fs.OnlyTarget++
			note(key, fmt.Sprintf("only on the target (%d columns)", len(canonical(items))))
			return nil
		}})
		if err != nil {
			return sum, err
		}
		o.Logger.Info("verified", "column_family", f.def.Name, "rows", fs.Rows, "differ", fs.Differ, "only_on_origin", fs.OnlyOrigin, "only_on_target", fs.OnlyTarget)
		sum.Differences += int(fs.Differ + fs.OnlyOrigin + fs.OnlyTarget)
		sum.Families = append(sum.Families, fs)
	}
	return sum, nil
}

func keyHash(k []byte) uint64 {
	h := fnv.New64a()
	h.Write(k)
	h.Write([]byte{0xff})
	return h.Sum64()
}

// collectSink gathers a row's pages and hands the whole row to onRow.
type collectSink struct {
	key   []byte
	row   []*cassandra19.ColumnOrSuperColumn
	onRow func(key []byte, items []*cassandra19.ColumnOrSuperColumn) error
}

func (s *collectSink) beginRow(key []byte) error {
	s.key, s.row = key, nil
	return nil
}

func (s *collectSink) items(page []*cassandra19.ColumnOrSuperColumn) error {
	s.row = append(s.row, page...)
	return nil
}

func (s *collectSink) endRow() error { return s.onRow(s.key, s.row) }

// wholeRow19 reads every column of one row, paged by o.PageSize.
func wholeRow19(ctx context.Context, c *conn19, o *Options, fam family19, key []byte) ([]*cassandra19.ColumnOrSuperColumn, error) {
	parent := &cassandra19.ColumnParent{ColumnFamily: fam.def.Name}
	start, finish := fam.bounds()
	var out []*cassandra19.ColumnOrSuperColumn
	for {
		pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: start, Finish: finish, Count: int32(o.PageSize + 1)}}
		page, err := c.GetSlice(ctx, key, parent, pred, cassandra19.ConsistencyLevel(o.Consistency))
		if err != nil {
			return nil, fmt.Errorf("get_slice of %s.%s row %x on %s: %w", o.Keyspace, fam.def.Name, key, c.addr, describeErr19(err))
		}
		if len(out) > 0 && len(page) > 0 {
			page = page[1:] // the last name of the previous page
		}
		out = append(out, page...)
		if len(page) < o.PageSize || len(out) == 0 {
			return out, nil
		}
		start = itemName19(out[len(out)-1])
	}
}

// canonical is a row's columns as comparable strings: name, value,
// timestamp and whether it expires; a super column's subcolumns each.
func canonical(items []*cassandra19.ColumnOrSuperColumn) []string {
	var out []string
	col := func(prefix string, c *cassandra19.Column) {
		out = append(out, fmt.Sprintf("%s%x=%x@%d ttl:%v", prefix, c.Name, c.Value, c.GetTimestamp(), c.TTL != nil && *c.TTL > 0))
	}
	for _, it := range items {
		switch {
		case it.Column != nil:
			col("", it.Column)
		case it.SuperColumn != nil:
			for _, c := range it.SuperColumn.Columns {
				col(hex.EncodeToString(it.SuperColumn.Name)+":", c)
			}
		case it.CounterColumn != nil:
			out = append(out, fmt.Sprintf("%x=%d", it.CounterColumn.Name, it.CounterColumn.Value))
		case it.CounterSuperColumn != nil:
			for _, c := range it.CounterSuperColumn.Columns {
				out = append(out, fmt.Sprintf("%x:%x=%d", it.CounterSuperColumn.Name, c.Name, c.Value))
			}
		}
	}
	return out
}

func firstDifference(want, have []string) string {
	for i := range min(len(want), len(have)) {
		if want[i] != have[i] {
			return fmt.Sprintf("origin has %s, target %s", want[i], have[i])
		}
	}
	if len(want) > len(have) {
		return fmt.Sprintf("target lacks %s (%d of %d columns)", want[len(have)], len(want)-len(have), len(want))
	}
	return fmt.Sprintf("target has more: %s (%d columns beyond the origin's %d)", strings.TrimSpace(have[len(want)]), len(have)-len(want), len(want))
}
