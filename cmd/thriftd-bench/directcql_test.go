package main

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine/cqlstore"
)

// The replay sends each recorded request as often per call as thriftd's
// store sent it, fractions carried across calls, in the order the store
// first sent them, with the values it bound.
func TestReplayFromRecording(t *testing.T) {
	blob := func(s string) cqlstore.RecordedValue { return cqlstore.RecordedValue{T: "blob", V: s} }
	rec := &cqlstore.Recording{Requests: []cqlstore.RecordedRequest{
		{Kind: "query", Statements: []string{"SELECT b"}, Consistency: "ONE", Sent: 2, FirstMicros: 20,
			Samples: []cqlstore.RecordedSample{{Values: [][]cqlstore.RecordedValue{{blob("YQ=="), {T: "list<blob>", V: "YQ==,Yg=="}, {T: "bigint", V: "7"}}}}}},
		{Kind: "batch UNLOGGED", Statements: []string{"INSERT a", "INSERT a"}, Consistency: "QUORUM", Sent: 8, Pages: 0, FirstMicros: 10,
			Samples: []cqlstore.RecordedSample{{Values: [][]cqlstore.RecordedValue{{blob("YQ==")}, {blob("Yg==")}}}}},
		{Kind: "query", Statements: []string{"never sent"}, Consistency: "ONE", Retries: 1},
	}}
	r, err := newReplay(nil, rec, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.reqs) != 2 || r.reqs[0].Statements[0] != "INSERT a" || r.reqs[1].Statements[0] != "SELECT b" {
		t.Fatalf("replayed requests %+v, want the batch, then the query", r.reqs)
	}
	v := r.reqs[1].samples[0].values[0]
	if string(v[0].([]byte)) != "a" || len(v[1].([][]byte)) != 2 || string(v[1].([][]byte)[1]) != "b" || v[2].(int64) != 7 {
		t.Fatalf("values %#v", v)
	}
	total := make([]int, 2)
	ns := make([]int, 2)
	for range 8 {
		r.counts(ns)
		for i, n := range ns {
			total[i] += n
		}
	}
	if total[0] != 8 || total[1] != 2 {
		t.Fatalf("over 8 calls the replay sends %v, want [8 2]", total)
	}
	if d := strings.Join(r.describe(), "\n"); !strings.Contains(d, "1.00 × batch UNLOGGED of 2 at QUORUM, page size 0: 2 × `INSERT a`") ||
		!strings.Contains(d, "0.25 × query at ONE") {
		t.Fatalf("description:\n%s", d)
	}
	if _, err := newReplay(nil, &cqlstore.Recording{Requests: []cqlstore.RecordedRequest{{Kind: "query", Statements: []string{"x"}, Consistency: "ONE", Sent: 1,
		Samples: []cqlstore.RecordedSample{{Values: [][]cqlstore.RecordedValue{{{T: "unsupported float64"}}}}}}}}, 1); err == nil {
		t.Fatal("a value of an unknown type was replayed")
	}
}

// Every type the store records is bound again as the driver takes it:
// a RandomPartitioner token (varint) among them.
func TestReplayValues(t *testing.T) {
	got, err := replayValues([]cqlstore.RecordedValue{
		{T: "blob", V: "YQ=="}, {T: "text", V: "x"}, {T: "bigint", V: "-7"}, {T: "int", V: "3"},
		{T: "boolean", V: "true"}, {T: "varint", V: "85070591730234615865843651857942052864"}, {T: "null"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{[]byte("a"), "x", int64(-7), 3, true, new(big.Int).Lsh(big.NewInt(1), 126), nil}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("replayValues = %v, want %v", got, want)
	}
	if _, err := replayValues([]cqlstore.RecordedValue{{T: "unsupported *foo.Bar"}}); err == nil {
		t.Error("an unsupported recorded type was bound")
	}
}
