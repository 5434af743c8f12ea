package handler19

import (
	"sync"
	"time"

	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// family is a column family with the 1.2 types its requests are checked
// against and the figures its calls record, resolved once per schema
// version (as Cassandra's CFMetaData holds its comparators): a schema
// never changes, so neither does what is resolved from it.
type family struct {
	*schema.ColumnFamily
	cmp, subCmp   marshal.Comparator
	keyValidator  marshal.Comparator // nil: BytesType
	defaultValues marshal.Comparator // nil: BytesType
	// validators are the 1.2 types of Columns' validators, index by index
	// (nil: the default validator).
	validators []marshal.Comparator
	counter    bool
	m          *rpcmetrics.Family
}

// families are the families of one schema version, resolved as calls
// first name them.
type families struct {
	sch  *schema.Schema
	byCF sync.Map // *schema.ColumnFamily -> *family
}

// familyOf is cf, of keyspace ks of sch, resolved.
func (s *Service) familyOf(sch *schema.Schema, ks string, cf *schema.ColumnFamily) *family {
	fs := s.families.Load()
	if fs == nil || fs.sch != sch {
		// The first call of a new version starts its families. A call
		// of the version before, still running, may take them back for
		// a moment, which costs resolving again, never a wrong answer.
		next := &families{sch: sch}
		s.families.CompareAndSwap(fs, next)
		fs = next
	}
	if f, ok := fs.byCF.Load(cf); ok {
		return f.(*family)
	}
	f, _ := fs.byCF.LoadOrStore(cf, s.resolve(ks, cf))
	return f.(*family)
}

// resolve builds the family of cf, of keyspace ks.
func (s *Service) resolve(ks string, cf *schema.ColumnFamily) *family {
	f := &family{ColumnFamily: cf, cmp: s.typ(cf.Comparator), keyValidator: s.typ(cf.KeyValidator), defaultValues: s.typ(cf.DefaultValidator),
		m: s.metrics.Family(ks, cf.Name)}
	if cf.Super {
		f.subCmp = s.typ(cf.SubComparator)
	}
	f.counter = f.defaultValues != nil && f.defaultValues.Name() == counterType
	for _, d := range cf.Columns {
		f.validators = append(f.validators, s.typ(d.Validator))
	}
	return f
}

// commutative reports a counter column family.
func (f *family) commutative() bool { return f.counter }

// comparatorFor is CFMetaData.getComparatorFor: names inside a super
// column are subcolumns.
func (f *family) comparatorFor(superColumn []byte) marshal.Comparator {
	if f.Super && superColumn != nil {
		return f.subCmp
	}
	return f.cmp
}

// valueValidator is the type a column's value must have: its declared
// column's validator, else the default validator. nil accepts anything.
func (f *family) valueValidator(name []byte) marshal.Comparator {
	for i := range f.Columns {
		if string(f.Columns[i].Name) == string(name) {
			if t := f.validators[i]; t != nil {
				return t
			}
			break
		}
	}
	return f.defaultValues
}

// read records a call's read of rows rows of f, from start until now in
// the store.
func (f *family) read(rows int, start time.Time) { f.m.Read(rows, time.Since(start)) }

// wrote records a call's write of rows rows of f, in d.
func (f *family) wrote(rows int, d time.Duration) { f.m.Wrote(rows, d) }
