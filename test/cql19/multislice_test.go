package cql19

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

func longName(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// multiSliceKeyspace has the families get_multi_slice is tried on.
func multiSliceKeyspace(ks string) *c19.KsDef {
	cf := func(name, comparator string) *c19.CfDef {
		d := c19.NewCfDef()
		d.Keyspace, d.Name, d.ComparatorType = ks, name, comparator
		return d
	}
	sup := cf("Sup", "UTF8Type")
	sup.ColumnType, sup.SubcomparatorType = "Super", strp("UTF8Type")
	longKeys := cf("LongKeys", "UTF8Type")
	longKeys.KeyValidationClass = strp("LongType")
	return &c19.KsDef{
		Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs:          []*c19.CfDef{cf("Std", "UTF8Type"), cf("Long", "LongType"), sup, longKeys},
	}
}

// get_multi_slice on thriftd and on the real 2.1.21 (where the call comes
// from), from the same schema and data: ranges alone and together,
// overlapping, reversed, counted, and the requests 2.1.21 refuses.
func TestGetMultiSliceAsCassandra21(t *testing.T) {
	refAddr := testenv.Reference(t, "2.1", "random")
	thrAddr := startThriftd(t).Addr
	ks := uniqueName(t, "Multi_")
	dropLater(t, refAddr, ks)
	sides := map[string]*testenv.Client19{"2.1.21": dial(t, refAddr), "thriftd": dial(t, thrAddr)}
	ts := int64(1700000000000000)
	for name, c := range sides {
		if _, err := c.SystemAddKeyspace(ctx, multiSliceKeyspace(ks)); err != nil {
			t.Fatalf("%s: system_add_keyspace: %v", name, err)
		}
		if err := c.SetKeyspace(ctx, ks); err != nil {
			t.Fatalf("%s: set_keyspace: %v", name, err)
		}
		muts := map[string][]*c19.Mutation{}
		for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			muts["Std"] = append(muts["Std"], &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{
				Column: &c19.Column{Name: []byte(n), Value: []byte("v" + n), Timestamp: &ts}}})
		}
		for i := int64(-3); i <= 3; i++ {
			muts["Long"] = append(muts["Long"], &c19.Mutation{ColumnOrSupercolumn: &c19.ColumnOrSuperColumn{
				Column: &c19.Column{Name: longName(i * 10), Value: []byte{byte(i)}, Timestamp: &ts}}})
		}
		if err := c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"row": muts}, c19.ConsistencyLevel_ONE); err != nil {
			t.Fatalf("%s: batch_mutate: %v", name, err)
		}
	}
	s := func(start, finish string) *c19.ColumnSlice {
		cs := &c19.ColumnSlice{}
		if start != "-" {
			cs.Start = []byte(start)
		}
		if finish != "-" {
			cs.Finish = []byte(finish)
		}
		return cs
	}
	req := func(cf string, reversed bool, count int32, slices ...*c19.ColumnSlice) *c19.MultiSliceRequest {
		r := c19.NewMultiSliceRequest()
		r.Key, r.ColumnParent, r.ColumnSlices, r.Reversed, r.Count = []byte("row"), &c19.ColumnParent{ColumnFamily: cf}, slices, reversed, count
		return r
	}
	with := func(r *c19.MultiSliceRequest, f func(*c19.MultiSliceRequest)) *c19.MultiSliceRequest { f(r); return r }
	cases := []struct {
		label string
		req   *c19.MultiSliceRequest
	}{
		{"one range", req("Std", false, 100, s("b", "d"))},
		{"two ranges", req("Std", false, 100, s("a", "b"), s("e", "f"))},
		{"two ranges given out of order", req("Std", false, 100, s("e", "f"), s("a", "b"))},
		{"overlapping ranges", req("Std", false, 100, s("a", "c"), s("b", "e"))},
		{"a range inside another", req("Std", false, 100, s("a", "g"), s("b", "c"))},
		{"open ranges", req("Std", false, 100, s("", "b"), s("g", ""))},
		{"open ranges overlapping", req("Std", false, 100, s("", "c"), s("b", ""))},
		{"unset bounds", req("Std", false, 100, s("-", "b"), s("f", "-"))},
		{"the same range twice", req("Std", false, 100, s("c", "d"), s("c", "d"))},
		{"count cuts the second range", req("Std", false, 3, s("a", "b"), s("d", "h"))},
		{"count cuts the first range", req("Std", false, 1, s("a", "c"), s("e", "f"))},
		{"count 0", req("Std", false, 0, s("a", "c"))},
		{"negative count", req("Std", false, -1, s("a", "c"))},
		{"no ranges", req("Std", false, 100, []*c19.ColumnSlice{}...)},
		{"column_slices unset", req("Std", false, 100)},
		{"column_parent unset", with(req("Std", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) { r.ColumnParent = nil })},
		{"ranges of nothing", req("Std", false, 100, s("x", "z"), s("b0", "b9"))},
		{"reversed", req("Std", true, 100, s("b", "a"), s("f", "d"))},
		{"reversed overlapping", req("Std", true, 100, s("e", "b"), s("g", "d"))},
		{"reversed open", req("Std", true, 100, s("", "g"), s("b", ""))},
		{"reversed counted", req("Std", true, 3, s("h", "f"), s("c", "a"))},
		{"start after finish", req("Std", false, 100, s("a", "b"), s("d", "c"))},
		{"reversed start before finish", req("Std", true, 100, s("b", "a"), s("c", "d"))},
		{"LongType ranges", req("Long", false, 100, s(string(longName(-30)), string(longName(-10))), s(string(longName(5)), string(longName(25))))},
		{"LongType reversed", req("Long", true, 100, s(string(longName(30)), string(longName(10))), s(string(longName(0)), string(longName(-20))))},
		{"LongType start after finish", req("Long", false, 100, s(string(longName(10)), string(longName(-10))))},
		{"LongType bounds of 3 bytes", req("Long", false, 100, s("abc", "abd"))},
		{"LongType bounds of 3 and 8 bytes", req("Long", false, 100, s("abc", string(longName(10))))},
		{"a LongType bound of 3 bytes alone", req("Long", false, 100, s("abc", ""))},
		{"UTF8Type bounds not UTF-8", req("Std", false, 100, s("\xff\xfe", "\xff\xff"))},
		{"a super family", req("Sup", false, 100, s("a", "b"))},
		{"a super column in the parent", with(req("Std", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) {
			r.ColumnParent.SuperColumn = []byte("sc")
		})},
		{"an unknown family", req("NoSuchFamily", false, 100, s("a", "b"))},
		{"an empty family name", req("", false, 100, s("a", "b"))},
		{"an empty key", with(req("Std", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) { r.Key = []byte{} })},
		{"a key the key validator refuses", with(req("LongKeys", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) { r.Key = []byte("abc") })},
		{"a bad key and a bad range", with(req("Std", false, 100, s("b", "a")), func(r *c19.MultiSliceRequest) { r.Key = []byte{} })},
		{"consistency ANY", with(req("Std", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) { r.ConsistencyLevel = c19.ConsistencyLevel_ANY })},
		{"consistency QUORUM", with(req("Std", false, 100, s("a", "b")), func(r *c19.MultiSliceRequest) { r.ConsistencyLevel = c19.ConsistencyLevel_QUORUM })},
		{"an unset count", with(req("Std", false, 100, s("a", "h")), func(r *c19.MultiSliceRequest) { r.Count = 1000 })},
	}
	// Where 2.1.21 fails with an internal error and drops the connection,
	// thriftd answers: these are its answers.
	onPurpose := map[string]string{
		"column_slices unset": "InvalidRequestException(get_multi_slice requires column_slices)",
		"column_parent unset": "InvalidRequestException(get_multi_slice requires a column_parent)",
	}
	refused, answered := 0, 0
	for _, tc := range cases {
		out := map[string]string{}
		for name, c := range sides {
			v, err := c.GetMultiSlice(ctx, tc.req)
			text, ok := render(columnsOf(v), err)
			if !ok {
				if name == "thriftd" {
					t.Fatalf("%s: thriftd: %s", tc.label, text)
				}
				c = dial(t, refAddr)
				if err := c.SetKeyspace(ctx, ks); err != nil {
					t.Fatal(err)
				}
				sides[name] = c
				text = "transport error"
			}
			out[name] = text
		}
		if want, ok := onPurpose[tc.label]; ok {
			if out["2.1.21"] != "transport error" || out["thriftd"] != want {
				t.Errorf("get_multi_slice, %s: 2.1.21 %s, thriftd %s; want a transport error and %s", tc.label, out["2.1.21"], out["thriftd"], want)
			}
			continue
		}
		t.Logf("%s: %s", tc.label, out["thriftd"])
		switch {
		case strings.HasPrefix(out["2.1.21"], "InvalidRequestException("):
			refused++
		case out["2.1.21"] != "[]":
			answered++
		}
		if out["2.1.21"] != out["thriftd"] {
			t.Errorf("get_multi_slice, %s:\n  2.1.21:  %s\n  thriftd: %s", tc.label, out["2.1.21"], out["thriftd"])
		}
	}
	// The cases are meant to be both answered with columns and refused.
	if refused < 10 || answered < 15 {
		t.Errorf("2.1.21 refused %d requests and answered %d with columns; the cases are not what they mean to be", refused, answered)
	}
	// Outside a keyspace.
	for name, addr := range map[string]string{"2.1.21": refAddr, "thriftd": thrAddr} {
		_, err := dial(t, addr).GetMultiSlice(ctx, req("Std", false, 10, s("a", "b")))
		if text, _ := render(nil, err); text != "InvalidRequestException(No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename)" {
			t.Errorf("%s: get_multi_slice before set_keyspace: %s", name, text)
		}
	}
}

// columnsOf renders a reply's columns compactly.
func columnsOf(v []*c19.ColumnOrSuperColumn) []string {
	out := []string{}
	for _, c := range v {
		switch {
		case c.Column != nil:
			out = append(out, fmt.Sprintf("%x=%x@%d", c.Column.Name, c.Column.Value, c.Column.GetTimestamp()))
		default:
			out = append(out, fmt.Sprintf("%+v", c))
		}
	}
	return out
}
