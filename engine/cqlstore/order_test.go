package cqlstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
)

// orderClasses are the marshal classes whose CQL types are measured.
var orderClasses = []string{
	"BytesType", "AsciiType", "UTF8Type", "LongType", "LexicalUUIDType", "TimeUUIDType",
	"IntegerType", "DecimalType", "BooleanType", "DateType", "TimestampType", "DoubleType",
	"FloatType", "Int32Type", "InetAddressType", "UUIDType",
}

// orderSamples are names c accepts, chosen to tell orders apart: signs,
// high bits, prefixes, equal timestamps.
func orderSamples(class string, c marshal.Comparator, r *rand.Rand) [][]byte {
	var out [][]byte
	add := func(b []byte) {
		if len(b) > 0 && c.Validate(b) == nil {
			out = append(out, b)
		}
	}
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	switch class {
	case "BytesType":
		for i := 0; i < 60; i++ {
			add(rnd(1 + r.IntN(12)))
		}
		add([]byte{0x00})
		add([]byte{0x00, 0x00})
		add([]byte{0xff})
		add([]byte{0x7f, 0xff})
		add([]byte{0x80})
	case "AsciiType":
		for i := 0; i < 60; i++ {
			b := rnd(1 + r.IntN(12))
			for j := range b {
				b[j] &= 0x7f
			}
			add(b)
		}
	case "UTF8Type":
		runes := []rune{'a', 'Z', '0', 0x7f, 0xe9, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x1f600, 0x10ffff, 0xe000}
		for i := 0; i < 60; i++ {
			var sb strings.Builder
			for j := 0; j < 1+r.IntN(5); j++ {
				sb.WriteRune(runes[r.IntN(len(runes))])
			}
			add([]byte(sb.String()))
		}
	case "LongType", "DateType", "TimestampType":
		for _, v := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 1 << 40, -(1 << 40), 255, 256, -256} {
			add(binary.BigEndian.AppendUint64(nil, uint64(v)))
		}
		for i := 0; i < 40; i++ {
			add(rnd(8))
		}
	case "Int32Type":
		for _, v := range []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 255, 256, -256} {
			add(binary.BigEndian.AppendUint32(nil, uint32(v)))
		}
		for i := 0; i < 40; i++ {
			add(rnd(4))
		}
	case "TimeUUIDType", "UUIDType", "LexicalUUIDType":
		stamps := []uint64{0, 1, 0x0fffffffffffffff, 0x0123456789abcdef, 0x0800000000000000}
		for i := 0; i < 60; i++ {
			u := rnd(16)
			if class == "TimeUUIDType" || i%2 == 0 {
				ts := stamps[r.IntN(len(stamps))]
				if i%3 == 0 {
					ts = r.Uint64() & 0x0fffffffffffffff
				}
				binary.BigEndian.PutUint32(u[0:], uint32(ts))
				binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
				binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)|0x1000)
				u[8] = u[8]&0x3f | 0x80
				if i%4 == 0 {
					u[8] |= 0x40 // another variant: its high bits set too
				}
			}
			add(u)
		}
		// One timestamp and clock sequence, nodes that differ in the
		// high bit: 1.2 breaks such ties by signed bytes (ByteBuffer's
		// compareTo), 0.6 by unsigned ones.
		for _, n := range []byte{0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff} {
			u := []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x11, 0x08, 0x80, 0x00, n, 0, 0, 0, 0, n}
			add(u)
			u = bytes.Clone(u)
			u[9] = n
			add(u)
		}
	case "IntegerType":
		// Encodings that are not the shortest name the same number.
		for _, b := range [][]byte{{0x00}, {0x00, 0x00}, {0x05}, {0x00, 0x05}, {0xfb}, {0xff, 0xfb}, {0x7f}, {0x00, 0x80}, {0xff}, {0x80}, {0xff, 0x7f}} {
			add(b)
		}
		for i := 0; i < 40; i++ {
			add(rnd(1 + r.IntN(10)))
		}
	case "DecimalType":
		for i := 0; i < 40; i++ {
			b := binary.BigEndian.AppendUint32(nil, uint32(r.IntN(7)-3))
			add(append(b, rnd(1+r.IntN(6))...))
		}
		add([]byte{0, 0, 0, 1, 0x0a})             // 1.0
		add([]byte{0, 0, 0, 0, 0x01})             // 1
		add([]byte{0, 0, 0, 2, 0x00})             // 0.00
		add([]byte{0, 0, 0, 0, 0x00})             // 0
		add([]byte{0xff, 0xff, 0xff, 0xff, 0x01}) // 10
		add([]byte{0x01, 0x02})                   // too short for CQL's decimal
	case "DoubleType", "FloatType":
		size := 8
		if class == "FloatType" {
			size = 4
		}
		for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310, -1e-310, 3.5, -2.25, math.MaxFloat32, math.SmallestNonzeroFloat64} {
			if size == 8 {
				add(binary.BigEndian.AppendUint64(nil, math.Float64bits(f)))
			} else {
				add(binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f))))
			}
		}
		add(bytes.Repeat([]byte{0xff}, size)) // another NaN
		for i := 0; i < 30; i++ {
			add(rnd(size))
		}
	case "BooleanType":
		for _, b := range []byte{0, 1, 2, 0x7f, 0x80, 0xff} {
			add([]byte{b})
		}
	default:
		for _, n := range []int{1, 2, 3, 4, 5, 8, 16} {
			for i := 0; i < 10; i++ {
				add(rnd(n))
			}
		}
	}
	return out
}

// orderResult is what one CQL type did with one comparator's names.
type orderResult struct {
	class, cqlType     string
	created            bool
	accepted, refused  int
	sameOrder          bool
	firstRefusal, diff string
}

// measureOrder inserts samples as clustering values of a column of
// cqlType and compares the cluster's order with c's.
func measureOrder(t *testing.T, st *Store, cqlKS, class, cqlType string, c marshal.Comparator, samples [][]byte) orderResult {
	ctx := context.Background()
	res := orderResult{class: class, cqlType: cqlType}
	table := quote(cqlKS) + "." + quote("order_"+strings.ToLower(class))
	if err := st.ddl(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (k int, c `+cqlType+`, PRIMARY KEY (k, c))`); err != nil {
		res.firstRefusal = err.Error()
		return res
	}
	res.created = true
	var accepted [][]byte
	for _, s := range samples {
		err := st.session.Query(`INSERT INTO `+table+` (k, c) VALUES (0, ?)`, raw(s)).WithContext(ctx).Exec()
		if err != nil {
			res.refused++
			if res.firstRefusal == "" {
				res.firstRefusal = fmt.Sprintf("%x: %v", s, err)
			}
			continue
		}
		res.accepted++
		accepted = append(accepted, s)
	}
	sort.SliceStable(accepted, func(i, j int) bool { return c.Compare(accepted[i], accepted[j]) < 0 })
	var want [][]byte
	for _, s := range accepted {
		if len(want) == 0 || c.Compare(want[len(want)-1], s) != 0 {
			want = append(want, s)
		}
	}
	iter := st.session.Query(`SELECT c FROM ` + table + ` WHERE k = 0`).WithContext(ctx).Iter()
	var got [][]byte
	var v raw
	for iter.Scan(&v) {
		got = append(got, bytes.Clone(v))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	res.sameOrder = len(got) == len(want)
	for i := 0; res.sameOrder && i < len(got); i++ {
		if c.Compare(got[i], want[i]) != 0 {
			res.sameOrder = false
			res.diff = fmt.Sprintf("at %d the cluster has %x, the comparator %x", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		res.diff = fmt.Sprintf("the cluster holds %d distinct names, the comparator %d", len(got), len(want))
	}
	return res
}

// TestComparatorOrderOnTheCluster measures, on a real Cassandra 5 node,
// whether the CQL type of each marshal class orders names as the
// comparator does (marshal.Parse: Cassandra 1.2's types) and
// accepts every name it accepts; the 19.x layout may store names in that
// type only then (nameTypes). The figures are logged (go test -v) and
// recorded in docs/cassandra.md.
func TestComparatorOrderOnTheCluster(t *testing.T) {
	st, o := openFresh(t, storetest.TestSchema(t, "RandomPartitioner"), 864000)
	cqlKS := keyspaceName(o.Prefix, storetest.Keyspace)
	r := rand.New(rand.NewPCG(1, 2))
	t.Logf("%-16s %-52s %-9s %-9s %s", "class", "CQL type", "accepted", "order", "stored as (nameType)")
	for _, class := range orderClasses {
		// The 19.x API's types are 1.2's (marshal.Parse).
		c, err := marshal.Parse(class)
		if err != nil {
			t.Fatal(err)
		}
		typ := nativeTypes[class]
		res := measureOrder(t, st, cqlKS, class, typ, c, orderSamples(class, c, r))
		order := "same"
		if !res.sameOrder {
			order = "differs"
		}
		t.Logf("%-16s %-52s %3d/%-5d %-9s %s", class, typ, res.accepted, res.accepted+res.refused, order, nameType(c))
		if res.diff != "" {
			t.Logf("    %s", res.diff)
		}
		if res.firstRefusal != "" {
			t.Logf("    refused: %s", res.firstRefusal)
		}
		if nameType(c) != "blob" || class == "BytesType" {
			if !res.created || res.refused > 0 || !res.sameOrder {
				t.Errorf("%s: names are stored as %s, which does not keep the comparator's order or names (created %v, %d refused, same order %v)",
					class, nameType(c), res.created, res.refused, res.sameOrder)
			}
		}
		if res.accepted < 5 {
			t.Errorf("%s: only %d names measured", class, res.accepted)
		}
	}
}
