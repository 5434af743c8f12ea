package handler

import (
	"sync"
	"time"

	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// figures are the column families' figures (rpcmetrics.Family) of one
// schema version, resolved as calls first name the families: a call
// records each family it read or wrote once, with no label lookup.
type figures struct {
	sch  *schema.Schema
	byCF sync.Map // *schema.ColumnFamily -> *rpcmetrics.Family
}

// figuresOf is the figures of cf, of keyspace ks of the current schema.
func (s *Service) figuresOf(ks string, cf *schema.ColumnFamily) *rpcmetrics.Family {
	sch := s.sch()
	fs := s.figures.Load()
	if fs == nil || fs.sch != sch {
		next := &figures{sch: sch}
		s.figures.CompareAndSwap(fs, next)
		fs = next
	}
	if f, ok := fs.byCF.Load(cf); ok {
		return f.(*rpcmetrics.Family)
	}
	f, _ := fs.byCF.LoadOrStore(cf, s.metrics.Family(ks, cf.Name))
	return f.(*rpcmetrics.Family)
}

// read records a call's read of rows rows of cf, from start until now in
// the store.
func (s *Service) read(ks string, cf *schema.ColumnFamily, rows int, start time.Time) {
	s.figuresOf(ks, cf).Read(rows, time.Since(start))
}
