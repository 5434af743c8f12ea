package ldbstore

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"
)

// A cursor must be indistinguishable from the iterator it wraps: any
// sequence of moves leaves both on the same entry, or both invalid.
func TestCursorMovesLikeItsIterator(t *testing.T) {
	db, err := leveldb.Open(storage.NewMemStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	// Short keys over a small alphabet, so seeks often hit, miss by one
	// byte, or land between neighbours.
	key := func() []byte {
		k := make([]byte, 1+rng.IntN(3))
		for i := range k {
			k[i] = byte(rng.IntN(4))
		}
		return k
	}
	for range 60 {
		if err := db.Put(key(), []byte{1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for trial := range 200 {
		raw, c := db.NewIterator(nil, nil), newCursor(db.NewIterator(nil, nil))
		var moves []string
		for range 30 {
			var a, b bool
			switch m := rng.IntN(10); {
			case m < 6:
				k := key()
				moves = append(moves, "seek "+string(rune('0'+len(k))))
				a, b = raw.Seek(k), c.Seek(k)
			case m < 8:
				moves = append(moves, "next")
				a, b = raw.Next(), c.Next()
			case m < 9:
				moves = append(moves, "prev")
				a, b = raw.Prev(), c.Prev()
			default:
				moves = append(moves, "first")
				a, b = raw.First(), c.First()
			}
			if a != b || raw.Valid() != c.Valid() || (a && !bytes.Equal(raw.Key(), c.Key())) {
				t.Fatalf("trial %d: after %v: iterator (%v, %x), cursor (%v, %x)", trial, moves, a, raw.Key(), b, c.Key())
			}
		}
		raw.Release()
		c.Release()
	}
}
