package sstablejson

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/transfertest"
)

// Every value of a type with one encoding per value reads back from its
// text.
func TestTypeFromStringReadsTypeString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, ty := range transfertest.Types19 {
		switch {
		case ty.Class == "IntegerType", ty.Class == "DecimalType", strings.HasPrefix(ty.Class, "DynamicComposite"):
			continue
		}
		for range 300 {
			b := ty.Gen(r)
			s, err := TypeString(ty.Class, b)
			if err != nil {
				t.Fatalf("%s %x: %v", ty.Class, b, err)
			}
			got, err := TypeFromString(ty.Class, s)
			if err != nil || !bytes.Equal(got, b) {
				t.Fatalf("%s: %x printed %q reads back as %x (%v)", ty.Class, b, s, got, err)
			}
		}
	}
}

func TestTypeFromStringValues(t *testing.T) {
	for _, c := range []struct{ class, text, hex string }{
		{"LongType", "-5", "fffffffffffffffb"},
		{"Int32Type", "100000", "000186a0"},
		{"IntegerType", "-129", "ff7f"},
		{"IntegerType", "128", "0080"},
		{"IntegerType", "0", "00"},
		{"DecimalType", "1.50", "00000002" + "0096"},
		{"DecimalType", "-3", "00000000" + "fd"},
		{"BooleanType", "TRUE", "01"},
		{"BooleanType", "false", "00"},
		{"DateType", "1700000000123", "0000018bcfe5687b"},
		{"DateType", "2026-11-25 04:20:00+0000", fmt.Sprintf("%016x", int64(1795580400000))},
		{"UTF8Type", "é", "c3a9"},
		{"BytesType", "00ff", "00ff"},
		{"InetAddressType", "127.0.0.1", "7f000001"},
		{"TimeUUIDType", "10000100-1234-11e0-8011-223344556600", "10000100123411e08011223344556600"},
		{"CompositeType(UTF8Type,LongType)", `a\:b\!:500`, "0004613a625c00" + "0008" + "00000000000001f4" + "00"},
		{"CompositeType(UTF8Type,LongType)", `click:!`, "0005636c69636b01"},
		{"ReversedType(LongType)", "7", "0000000000000007"},
	} {
		got, err := TypeFromString(c.class, c.text)
		if err != nil || hex.EncodeToString(got) != c.hex {
			t.Errorf("%s %q: %x (%v), want %s", c.class, c.text, got, err, c.hex)
		}
	}
	for _, c := range []struct{ class, text string }{
		{"LongType", "x"}, {"Int32Type", "9999999999"}, {"BooleanType", "yes"}, {"UUIDType", "nope"},
		{"TimeUUIDType", "6ba7b810-9dad-41d1-80b4-00c04fd430c8"}, {"InetAddressType", "300.1.1.1"},
		{"BytesType", "zz"}, {"CompositeType(UTF8Type,LongType)", "a:b"}, {"DynamicCompositeType(a=>AsciiType)", "x"},
	} {
		if b, err := TypeFromString(c.class, c.text); err == nil {
			t.Errorf("%s %q read as %x", c.class, c.text, b)
		}
	}
}

// recorder12 keeps what Read12 passes.
type recorder12 struct{ events []string }

func (r *recorder12) Row(x Row12) error {
	d := ""
	if x.Deleted != nil {
		d = fmt.Sprintf(" deleted %d/%d", x.Deleted.MarkedForDeleteAt, x.Deleted.LocalDeletionTime)
	}
	r.events = append(r.events, fmt.Sprintf("row %x%s", x.Key, d))
	return nil
}
func (r *recorder12) Super(n string, d *Deletion12) error {
	r.events = append(r.events, fmt.Sprintf("super %q %v", n, d != nil))
	return nil
}
func (r *recorder12) Column(c Column12) error {
	r.events = append(r.events, fmt.Sprintf("column %+v", c))
	return nil
}
func (r *recorder12) EndRow() error { r.events = append(r.events, "end"); return nil }

func TestWriter12ReadsBack(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter12(&b, false)
	w.BeginRow([]byte("k1"))
	w.Column("a:\"q\"<", "v", 5, 0, 0)
	w.Column("b", "w", 6, 100, 2000000000)
	w.EndRow()
	w.BeginRow([]byte{0})
	w.EndRow()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "[\n{\"key\": \"6b31\",\"columns\": [[\"a:\\\"q\\\"<\",\"v\",5], [\"b\",\"w\",6,\"e\",100,2000000000]]},\n{\"key\": \"00\",\"columns\": []}\n]\n"
	if b.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	var rec recorder12
	if err := Read12(&b, &rec); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rec.events, "\n")
	exp := strings.Join([]string{
		"row 6b31",
		`column {Name:a:"q"< Value:v Timestamp:5 Kind: TTL:0 LocalExpiration:0 TimestampOfLastDelete:0}`,
		"column {Name:b Value:w Timestamp:6 Kind:e TTL:100 LocalExpiration:2000000000 TimestampOfLastDelete:0}",
		"end", "row 00", "end"}, "\n")
	if got != exp {
		t.Fatalf("read\n%s\nwant\n%s", got, exp)
	}

	b.Reset()
	w = NewWriter12(&b, true)
	w.BeginRow([]byte("s"))
	w.BeginSuper("sc1")
	w.Column("1", "x", 1, 0, 0)
	w.EndSuper()
	w.BeginSuper("sc2")
	w.EndSuper()
	w.EndRow()
	w.Close()
	rec = recorder12{}
	if err := Read12(&b, &rec); err != nil {
		t.Fatal(err)
	}
	if want := []string{"row 73", `super "sc1" false`, "column {Name:1 Value:x Timestamp:1 Kind: TTL:0 LocalExpiration:0 TimestampOfLastDelete:0}", `super "sc2" false`, "end"}; !reflect.DeepEqual(rec.events, want) {
		t.Fatalf("read %q", rec.events)
	}
}

func TestRead12Kinds(t *testing.T) {
	in := `[
{"key": "6b","metadata": {"deletionInfo": {"markedForDeleteAt":7,"localDeletionTime":9}},"columns": [["a","00",1,"d"], ["b","1",2,"c",3], ["c","d",4,"t",5], ["e","v",6,false], ["f","v",7,true], ["g","v",8,false,10,11]]}
]`
	var rec recorder12
	if err := Read12(strings.NewReader(in), &rec); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"row 6b deleted 7/9",
		"column {Name:a Value:00 Timestamp:1 Kind:d TTL:0 LocalExpiration:0 TimestampOfLastDelete:0}",
		"column {Name:b Value:1 Timestamp:2 Kind:c TTL:0 LocalExpiration:0 TimestampOfLastDelete:3}",
		"column {Name:c Value:d Timestamp:4 Kind:t TTL:0 LocalExpiration:5 TimestampOfLastDelete:0}",
		"column {Name:e Value:v Timestamp:6 Kind: TTL:0 LocalExpiration:0 TimestampOfLastDelete:0}",
		"column {Name:f Value:v Timestamp:7 Kind:d TTL:0 LocalExpiration:0 TimestampOfLastDelete:0}",
		"column {Name:g Value:v Timestamp:8 Kind:e TTL:10 LocalExpiration:11 TimestampOfLastDelete:0}",
		"end",
	}
	if !reflect.DeepEqual(rec.events, want) {
		t.Fatalf("read\n%s", strings.Join(rec.events, "\n"))
	}
}

func TestRead12Refusals(t *testing.T) {
	for _, in := range []string{
		`{"k": []}`,
		`[{"columns": []}]`,
		`[{"key": "zz","columns": []}]`,
		`[{"key": "6b","columns": [["a","b"]]}]`,
		`[{"key": "6b","columns": [["a","b",1,"x"]]}]`,
		`[{"key": "6b","columns": [["a","b",1,"e",5]]}]`,
		`[{"key": "6b","columns": [["a","b","1"]]}]`,
		`[{"key": "6b","columns": [["a","b",1]]}`,
		`[{"key": "6b","other": 1}]`,
	} {
		if err := Read12(strings.NewReader(in), &recorder12{}); err == nil {
			t.Errorf("%s: read without error", in)
		}
	}
}

// A counter cell is written as 1.2's sstable2json wrote one, and its
// context, whatever its shards, reads back as their total.
func TestCounter12(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter12(&b, false)
	w.BeginRow([]byte("k"))
	w.Counter("hits", -42, 1700000000000000)
	w.EndRow()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "[\n{\"key\": \"6b\",\"columns\": [[\"hits\",\"0000" + hex.EncodeToString(exportCounterID[:]) +
		"0000000000000001ffffffffffffffd6\",1700000000000000,\"c\",-9223372036854775808]]}\n]\n"
	if b.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	var rec recorder12
	if err := Read12(&b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.events) != 3 || !strings.Contains(rec.events[1], "Kind:c") || !strings.Contains(rec.events[1], "TimestampOfLastDelete:-9223372036854775808") {
		t.Fatalf("read %q", rec.events)
	}
	shard := func(id byte, clock, count int64) string {
		var s [32]byte
		s[0] = id
		binary.BigEndian.PutUint64(s[16:], uint64(clock))
		binary.BigEndian.PutUint64(s[24:], uint64(count))
		return hex.EncodeToString(s[:])
	}
	for _, c := range []struct {
		context string
		total   int64
	}{
		{CounterContext12(7), 7},
		{CounterContext12(math.MinInt64), math.MinInt64},
		// A node's own (local) shard, listed in the header, and a
		// remote one: 1.2's total sums both.
		{"00010000" + shard(1, 3, 10) + shard(2, 5, -4), 6},
		// 2.1's header counts global shards negatively.
		{"ffff0000" + shard(1, 3, 10), 10},
		{"0000", 0},
	} {
		got, err := CounterTotal12(c.context)
		if err != nil || got != c.total {
			t.Errorf("%s: %d, %v; want %d", c.context, got, err, c.total)
		}
	}
	for _, bad := range []string{"", "00", "zz", "0001", "0000" + shard(1, 1, 1)[:10]} {
		if _, err := CounterTotal12(bad); err == nil {
			t.Errorf("%q read as a counter context", bad)
		}
	}
}
