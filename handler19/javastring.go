package handler19

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The Java toString of a few Thrift structs, which the real server put
// into some of its messages.

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// javaBinary is TBaseHelper.toString of a binary field: its bytes in hex,
// space-separated, the first 128 only.
func javaBinary(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i == 128 {
			sb.WriteString(" ...")
			break
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// javaBuffer is ByteBuffer.toString, which a list of binary values prints.
func javaBuffer(b []byte) string {
	return fmt.Sprintf("java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", len(b), len(b))
}

func predicateString(p *cassandra19.SlicePredicate) string {
	s := "SlicePredicate("
	sep := ""
	if p.ColumnNames != nil {
		names := make([]string, len(p.ColumnNames))
		for i, n := range p.ColumnNames {
			names[i] = javaBuffer(n)
		}
		s += "column_names:[" + strings.Join(names, ", ") + "]"
		sep = ", "
	}
	if r := p.SliceRange; r != nil {
		s += sep + fmt.Sprintf("slice_range:SliceRange(start:%s, finish:%s, reversed:%t, count:%d)", javaBinary(r.Start), javaBinary(r.Finish), r.Reversed, r.Count)
	}
	return s + ")"
}
