package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/marshal"
)

// The data statements of 0.6's shell (get, set, del, count) and how a
// path resolves to a column family and its comparators.

// target is a path resolved against the schema.
type target struct {
	ks, cf string
	meta   *cfMeta
}

func (s *Session) resolve(ctx context.Context, p Path) (target, error) {
	ks := p.Keyspace
	if ks == "" {
		ks = s.keyspace
	}
	if ks == "" {
		return target{}, fmt.Errorf("no keyspace for %s: write Keyspace.%s, or 'use <keyspace>' first", p.ColumnFamily, p.ColumnFamily)
	}
	m, err := s.meta(ctx, ks)
	var unknown unknownKeyspaceError
	if errors.As(err, &unknown) {
		return target{}, fmt.Errorf("No such keyspace: %s", ks)
	}
	if err != nil {
		return target{}, err
	}
	cf, ok := m[p.ColumnFamily]
	if !ok {
		return target{}, fmt.Errorf("No such column family: %s", p.ColumnFamily)
	}
	return target{ks: ks, cf: p.ColumnFamily, meta: cf}, nil
}

func (s *Session) get(ctx context.Context, g Get) error {
	t, err := s.resolve(ctx, g.Path)
	if err != nil {
		return err
	}
	names := g.Path.Names
	switch {
	case len(names) == 0:
		// A row: columns, or a Super CF's super columns.
		return s.slice(ctx, t, g, &cassandra.ColumnParent{ColumnFamily: t.cf}, t.meta.cmp)
	case t.meta.super && len(names) == 1:
		sc, err := encodeName(names[0], t.meta.cmp)
		if err != nil {
			return err
		}
		return s.slice(ctx, t, g, &cassandra.ColumnParent{ColumnFamily: t.cf, SuperColumn: sc}, t.meta.sub)
	case !t.meta.super && len(names) == 2:
		return fmt.Errorf("%s is a standard column family: get %s['key'] or %s['key']['column']", t.cf, t.cf, t.cf)
	}
	if g.Range != nil {
		return fmt.Errorf("a range [start:finish] comes right after the row key (or, in a super column family, after the super column)")
	}
	if g.Limit != 0 || g.Reversed {
		return errors.New("limit and reversed apply to slices, not to a single column")
	}
	path, cmp, err := columnPath(t, names)
	if err != nil {
		return err
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	r, err := c.Get(ctx, t.ks, g.Path.Key, path, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		return s.callErr(err)
	}
	if r.Column == nil {
		return errors.New("the server answered without a column")
	}
	s.out.One(showColumn(r.Column, cmp))
	return nil
}

// columnPath builds the path of a column (standard) or sub-column
// (super) and returns the comparator of its last name.
func columnPath(t target, names []Literal) (*cassandra.ColumnPath, marshal.Comparator, error) {
	p := &cassandra.ColumnPath{ColumnFamily: t.cf}
	if t.meta.super {
		sc, err := encodeName(names[0], t.meta.cmp)
		if err != nil {
			return nil, nil, err
		}
		col, err := encodeName(names[1], t.meta.sub)
		if err != nil {
			return nil, nil, err
		}
		p.SuperColumn, p.Column = sc, col
		return p, t.meta.sub, nil
	}
	col, err := encodeName(names[0], t.meta.cmp)
	if err != nil {
		return nil, nil, err
	}
	p.Column = col
	return p, t.meta.cmp, nil
}

// slice prints the columns under parent, page by page, and then
// "Returned N results.". cmp sorts the names being sliced.
func (s *Session) slice(ctx context.Context, t target, g Get, parent *cassandra.ColumnParent, cmp marshal.Comparator) error {
	var start, finish []byte
	if g.Range != nil {
		var err error
		if g.Range.Start != nil {
			if start, err = encodeName(*g.Range.Start, cmp); err != nil {
				return err
			}
		}
		if g.Range.Finish != nil {
			if finish, err = encodeName(*g.Range.Finish, cmp); err != nil {
				return err
			}
		}
	}
	if start == nil {
		start = []byte{}
	}
	if finish == nil {
		finish = []byte{}
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	total := 0
	first := true
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("Interrupted after %d results.", total)
		}
		want := s.cfg.PageSize
		if g.Limit > 0 && g.Limit-total < want {
			want = g.Limit - total
		}
		ask := want
		if !first {
			ask++ // the page starts with the last name already printed
		}
		pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: start, Finish: finish, Reversed: g.Reversed, Count: int32(ask)}}
		res, err := c.GetSlice(ctx, t.ks, g.Path.Key, parent, pred, cassandra.ConsistencyLevel_ONE)
		if err != nil {
			return s.callErr(err)
		}
		got := len(res)
		if !first && got > 0 && bytes.Equal(resultName(res[0]), start) {
			res = res[1:]
		}
		if len(res) > want {
			res = res[:want]
		}
		for _, r := range res {
			switch {
			case r.SuperColumn != nil:
				sc := SuperColumn{Name: formatName(t.meta.cmp, r.SuperColumn.Name), Columns: make([]Column, 0, len(r.SuperColumn.Columns))}
				for _, col := range r.SuperColumn.Columns {
					sc.Columns = append(sc.Columns, showColumn(col, t.meta.sub))
				}
				s.out.SuperColumn(sc)
			case r.Column != nil:
				s.out.Column(showColumn(r.Column, cmp))
			}
		}
		total += len(res)
		if got < ask || len(res) == 0 || (g.Limit > 0 && total >= g.Limit) {
			break
		}
		start = resultName(res[len(res)-1])
		first = false
	}
	s.out.Returned(total)
	return nil
}

// resultName is the name of a slice result.
func resultName(r *cassandra.ColumnOrSuperColumn) []byte {
	switch {
	case r.SuperColumn != nil:
		return r.SuperColumn.Name
	case r.Column != nil:
		return r.Column.Name
	}
	return nil
}

func showColumn(c *cassandra.Column, cmp marshal.Comparator) Column {
	return Column{Name: formatName(cmp, c.Name), Value: formatValue(c.Value), Timestamp: c.Timestamp}
}

func (s *Session) set(ctx context.Context, st Set) error {
	t, err := s.resolve(ctx, st.Path)
	if err != nil {
		return err
	}
	names := st.Path.Names
	switch {
	case len(names) == 0:
		return errors.New("No column name specified, (type 'help' or '?' for help on syntax).")
	case t.meta.super && len(names) == 1:
		return fmt.Errorf("%s is a super column family: set %s['key']['super']['column'] = 'value'", t.cf, t.cf)
	case !t.meta.super && len(names) == 2:
		return fmt.Errorf("%s is a standard column family: set %s['key']['column'] = 'value'", t.cf, t.cf)
	}
	path, _, err := columnPath(t, names)
	if err != nil {
		return err
	}
	v, err := encodeValue(st.Value)
	if err != nil {
		return err
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := c.Insert(ctx, t.ks, st.Path.Key, path, v, s.now().UnixMicro(), cassandra.ConsistencyLevel_ONE); err != nil {
		return s.callErr(err)
	}
	s.out.Done("Value inserted.")
	return nil
}

func (s *Session) del(ctx context.Context, st Del) error {
	t, err := s.resolve(ctx, st.Path)
	if err != nil {
		return err
	}
	names := st.Path.Names
	path := &cassandra.ColumnPath{ColumnFamily: t.cf}
	switch {
	case len(names) == 0:
	case t.meta.super && len(names) == 1:
		if path.SuperColumn, err = encodeName(names[0], t.meta.cmp); err != nil {
			return err
		}
	case !t.meta.super && len(names) == 2:
		return fmt.Errorf("%s is a standard column family: del %s['key'] or %s['key']['column']", t.cf, t.cf, t.cf)
	default:
		if path, _, err = columnPath(t, names); err != nil {
			return err
		}
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := c.Remove(ctx, t.ks, st.Path.Key, path, s.now().UnixMicro(), cassandra.ConsistencyLevel_ONE); err != nil {
		return s.callErr(err)
	}
	if len(names) == 0 {
		s.out.Done("row removed.")
	} else {
		s.out.Done("column removed.")
	}
	return nil
}

func (s *Session) count(ctx context.Context, st Count) error {
	t, err := s.resolve(ctx, st.Path)
	if err != nil {
		return err
	}
	parent := &cassandra.ColumnParent{ColumnFamily: t.cf}
	switch n := len(st.Path.Names); {
	case n == 1 && t.meta.super:
		if parent.SuperColumn, err = encodeName(st.Path.Names[0], t.meta.cmp); err != nil {
			return err
		}
	case n > 0:
		return fmt.Errorf("count counts a row's columns (count %s['key']) or a super column's sub-columns (count Super1['key']['super'])", t.cf)
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	n, err := c.GetCount(ctx, t.ks, st.Path.Key, parent, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		return s.callErr(err)
	}
	s.out.Count(int(n))
	return nil
}
