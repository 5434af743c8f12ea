package transfer

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"sync"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// ringScale is the unit of Stats.Done and Stats.Total when progress is
// measured along the ring.
const ringScale = 1 << 20

// ring estimates how far reads along the ring have gone: under a hashing
// partitioner (RandomPartitioner, Murmur3Partitioner) keys come back in
// token order and tokens spread evenly, so the token of the last key read
// is the fraction done. Under an order-preserving partitioner nothing
// says how far the keys go, and ring reports nothing.
type ring struct {
	p     dht.Partitioner
	scale float64
	stats *Stats
	mu    sync.Mutex
	fracs map[string]float64
	n     int
}

// newRing returns the estimator for the partitioner the server at c
// reports, for n column families, or nil if it cannot estimate.
func newRing(c *conn, n int, stats *Stats) *ring {
	name, err := c.DescribePartitioner(context.Background())
	if err != nil {
		return nil
	}
	var scale float64
	switch {
	case strings.HasSuffix(name, ".RandomPartitioner"):
		scale = math.Exp2(63) // tokens 0 .. 2^127: the first 8 bytes reach 2^63
	case strings.HasSuffix(name, ".Murmur3Partitioner"):
		scale = math.Exp2(64)
	default:
		return nil
	}
	p, err := dht.Lookup(name)
	if err != nil {
		return nil
	}
	stats.Total.Store(ringScale)
	stats.AlongRing.Store(true)
	return &ring{p: p, scale: scale, stats: stats, fracs: map[string]float64{}, n: n}
}

// at records that cf has been read up to key (done: to the end).
func (r *ring) at(cf, key string, done bool) {
	if r == nil {
		return
	}
	f := 1.0
	if !done {
		t := r.p.Token(key)
		if len(t) < 8 {
			return
		}
		f = min(float64(binary.BigEndian.Uint64(t[:8]))/r.scale, 1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fracs[cf] = f
	var sum float64
	for _, v := range r.fracs {
		sum += v
	}
	r.stats.Done.Store(int64(sum / float64(r.n) * ringScale))
}

// ringSink reports each row read to a ring.
type ringSink struct {
	rowSink
	r   *ring
	cf  string
	key string
}

func (s *ringSink) beginRow(key string) error {
	s.key = key
	return s.rowSink.beginRow(key)
}

func (s *ringSink) items(page []*cassandra.ColumnOrSuperColumn) error { return s.rowSink.items(page) }

func (s *ringSink) endRow() error {
	if err := s.rowSink.endRow(); err != nil {
		return err
	}
	s.r.at(s.cf, s.key, false)
	return nil
}
