package sstablejson

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
)

// Counter cells of the 1.x format. 1.2's sstable2json writes a counter
// cell as
//
//	["name","CONTEXT",timestamp,"c",timestampOfLastDelete]
//
// where CONTEXT is the hex of the counter's context as the sstable holds
// it (CounterColumnType's text is hex): a 2-byte header count N, N 2-byte
// indexes of the node's local shards, then 32-byte shards, each a 16-byte
// counter id, an 8-byte clock and an 8-byte count, all big-endian. The
// counter's value is the sum of the shards' counts (CounterContext.total).
// A counter never deleted has Long.MIN_VALUE as its timestamp of last
// delete.

// NoCounterDelete is the timestamp of last delete of a counter never
// deleted, as 1.2 writes it.
const NoCounterDelete int64 = math.MinInt64

// exportCounterID is the counter id of the one shard CounterContext12
// writes: a fixed id, so that the same dump loaded twice into 1.2 keeps
// one shard (of two shards of one id, 1.2 keeps the higher clock), not
// twice the count.
var exportCounterID = [16]byte{0x74, 0x68, 0x72, 0x69, 0x66, 0x74, 0x64, 0x2d, 0x65, 0x78, 0x70, 0x6f, 0x72, 0x74, 0x2d, 0x31}

const (
	shardLength = 16 + 8 + 8
	countOffset = 16 + 8
)

// CounterContext12 is the context text of a counter whose value is
// total: one shard (not a local one) of a fixed counter id, clock 1.
func CounterContext12(total int64) string {
	b := make([]byte, 2, 2+shardLength)
	b = append(b, exportCounterID[:]...)
	b = binary.BigEndian.AppendUint64(b, 1)
	b = binary.BigEndian.AppendUint64(b, uint64(total))
	return hex.EncodeToString(b)
}

// CounterTotal12 is the value of a counter whose context text is s: the
// sum of its shards' counts.
func CounterTotal12(s string) (int64, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return 0, fmt.Errorf("a counter's context is hex: %v", err)
	}
	if len(b) < 2 {
		return 0, fmt.Errorf("a counter's context of %d bytes has no header", len(b))
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	if n < 0 {
		n = -n
	}
	head := 2 + 2*n
	if len(b) < head || (len(b)-head)%shardLength != 0 {
		return 0, fmt.Errorf("a counter's context of %d bytes is not a header of %d bytes and shards of %d", len(b), head, shardLength)
	}
	var total int64
	for i := head; i < len(b); i += shardLength {
		total += int64(binary.BigEndian.Uint64(b[i+countOffset:]))
	}
	return total, nil
}
