package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func sniffBytes(b []byte) (framing, error) {
	return sniffFraming(bufio.NewReader(bytes.NewReader(b)).Peek)
}

func TestSniffFramingTable(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want framing
	}{
		{"versioned binary", []byte{0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3}, framing{}},
		{"compact", []byte{0x82, 0x21, 0x01, 0x03}, framing{compact: true}},
		{"framed versioned binary", []byte{0, 0, 0, 0x20, 0x80, 0x01}, framing{framed: true}},
		{"framed compact", []byte{0, 0, 0, 0x20, 0x82, 0x21}, framing{framed: true, compact: true}},
		{"framed unversioned binary", []byte{0, 0, 0, 0x20, 0x00, 0x00}, framing{framed: true, unversioned: true}},
		{"unversioned binary", []byte{0, 0, 0, 0x10, 'd', 'e'}, framing{unversioned: true}},
		{"unversioned, empty name", []byte{0, 0, 0, 0, 0x01, 0}, framing{unversioned: true}},
		// 0x80 without 0x01 is not a binary header; read as a frame length it
		// is negative, which the frame check refuses.
		{"0x80 then not 0x01", []byte{0x80, 0x00, 0x00, 0x10, 0x80, 0x01}, framing{framed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sniffBytes(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("sniff(% x) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSniffFramingShortInput(t *testing.T) {
	for _, in := range [][]byte{nil, {0x80}, {0, 0, 0, 9, 0x80}} {
		if _, err := sniffBytes(in); !errors.Is(err, io.EOF) {
			t.Errorf("sniff(% x): got %v, want EOF", in, err)
		}
	}
}

// Messages as the Thrift library itself encodes them, in every framing and
// header style, are detected as what they are.
func TestSniffFramingOfLibraryEncodings(t *testing.T) {
	calls := []struct {
		name string
		args thrift.TStruct
	}{
		{"describe_version", &cassandra.CassandraDescribeVersionArgs{}},
		{"get_slice", sliceArgs("key")},
		{"x", &cassandra.CassandraDescribeVersionArgs{}},
	}
	for _, k := range clientKinds {
		for _, c := range calls {
			got, err := sniffBytes(encodeCall(t, k, c.name, 1, c.args))
			want := framing{framed: k.framed, compact: k.compact}
			if err != nil || got != want {
				t.Errorf("%s %s: got %+v, %v", k.name, c.name, got, err)
			}
		}
	}
	// The library's non-strict writer produces the old header.
	for _, framed := range []bool{false, true} {
		for _, c := range calls {
			buf := thrift.NewTMemoryBuffer()
			trans := thrift.TTransport(buf)
			if framed {
				trans = thrift.NewTFramedTransportConf(buf, clientConf)
			}
			prot := thrift.NewTBinaryProtocolConf(trans, &thrift.TConfiguration{TBinaryStrictWrite: thrift.BoolPtr(false)})
			if err := thrift.NewTStandardClient(prot, prot).Send(context.Background(), prot, 1, c.name, c.args); err != nil {
				t.Fatal(err)
			}
			got, err := sniffBytes(buf.Bytes())
			if want := (framing{framed: framed, unversioned: true}); err != nil || got != want {
				t.Errorf("unversioned framed=%v %s: got %+v, %v", framed, c.name, got, err)
			}
		}
	}
}
