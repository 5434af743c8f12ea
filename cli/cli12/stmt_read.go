package cli12

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// printSlice prints a slice's columns; a column at the top of a super
// column family's slice is a sub-column, named through the subcomparator.
func (s *Session) printSlice(cf *cassandra19.CfDef, cols []*cassandra19.ColumnOrSuperColumn) {
	sub := cf.ColumnType == "Super"
	for _, c := range cols {
		switch {
		case c.SuperColumn != nil:
			fmt.Fprintf(s.out, "=> (super_column=%s,", nameString(cf, c.SuperColumn.Name, false))
			for _, sc := range c.SuperColumn.Columns {
				fmt.Fprintf(s.out, "\n     (name=%s, value=%s, timestamp=%d%s)", nameString(cf, sc.Name, true),
					s.valueString(cf, sc.Name, sc.Value), ts(sc), ttlSuffix(sc))
			}
			fmt.Fprintln(s.out, ")")
		case c.Column != nil:
			fmt.Fprintf(s.out, "=> (name=%s, value=%s, timestamp=%d%s)\n", nameString(cf, c.Column.Name, sub),
				s.valueString(cf, c.Column.Name, c.Column.Value), ts(c.Column), ttlSuffix(c.Column))
		case c.CounterSuperColumn != nil:
			fmt.Fprintf(s.out, "=> (super_column=%s,", nameString(cf, c.CounterSuperColumn.Name, false))
			for _, sc := range c.CounterSuperColumn.Columns {
				fmt.Fprintf(s.out, "\n     (counter=%s, value=%d)", nameString(cf, sc.Name, true), sc.Value)
			}
			fmt.Fprintln(s.out, ")")
		case c.CounterColumn != nil:
			fmt.Fprintf(s.out, "=> (counter=%s, value=%d)\n", nameString(cf, c.CounterColumn.Name, sub), c.CounterColumn.Value)
		}
	}
}

func (s *Session) getStmt(p *parser) error {
	// get cf where ... is told apart by the token after the name.
	if p.toks[p.i+1].kind != tEOF && strings.EqualFold(p.toks[p.i+1].text, "where") {
		return s.getWhere(p)
	}
	e, err := p.cfExpr()
	if err != nil {
		return err
	}
	var asType string
	if p.accept("as") {
		t := p.next()
		if t.kind == tEOF || t.kind == tPunct {
			return p.errAt(t, "a type")
		}
		asType = unescape(t.text)
	}
	limit, err := p.limit(1000000)
	if err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	start := time.Now()
	t, err := s.resolve(e)
	if err != nil {
		return err
	}
	cf := t.cf
	parent := &cassandra19.ColumnParent{ColumnFamily: cf.Name}
	slice := func() error {
		cols, err := s.client.GetSlice(s.ctx, t.key, parent, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: limit}}, s.cl)
		if err != nil {
			return why(err)
		}
		s.printSlice(cf, cols)
		fmt.Fprintf(s.out, "Returned %d results.\n", len(cols))
		s.elapsed(start)
		return nil
	}
	var name []byte
	switch len(e.cols) {
	case 0:
		return slice()
	case 1:
		if name, err = s.nameBytes(cf, e.cols[0], false); err != nil {
			return err
		}
		if t.super_ {
			parent.SuperColumn = name
			return slice()
		}
	case 2:
		if t.super, err = s.nameBytes(cf, e.cols[0], false); err != nil {
			return err
		}
		if name, err = s.nameBytes(cf, e.cols[1], true); err != nil {
			return err
		}
	}
	path := &cassandra19.ColumnPath{ColumnFamily: cf.Name, SuperColumn: t.super, Column: name}
	cosc, err := s.client.Get(s.ctx, t.key, path, s.cl)
	var nf *cassandra19.NotFoundException
	if errors.As(err, &nf) {
		fmt.Fprintln(s.out, "Value was not found")
		if !isCounter(cf) {
			s.elapsed(start)
		}
		return nil
	}
	if err != nil {
		return why(err)
	}
	if isCounter(cf) && cosc.CounterColumn != nil {
		fmt.Fprintf(s.out, "=> (counter=%s, value=%d)\n", nameString(cf, cosc.CounterColumn.Name, t.super != nil), cosc.CounterColumn.Value)
		s.elapsed(start)
		return nil
	}
	col := cosc.Column
	if col == nil {
		return errors.New("null")
	}
	var val string
	if asType != "" {
		class, err := formatType(asType)
		if err != nil {
			return err
		}
		val = getString(class, col.Value)
		updateColumnMeta(cf, name, class)
	} else {
		val = s.valueString(cf, name, col.Value)
	}
	fmt.Fprintf(s.out, "=> (name=%s, value=%s, timestamp=%d%s)\n", nameString(cf, col.Name, t.super_), val, ts(col), ttlSuffix(col))
	s.elapsed(start)
	return nil
}

var operators = map[string]cassandra19.IndexOperator{
	"=": cassandra19.IndexOperator_EQ, ">": cassandra19.IndexOperator_GT, ">=": cassandra19.IndexOperator_GTE,
	"<": cassandra19.IndexOperator_LT, "<=": cassandra19.IndexOperator_LTE,
}

func (s *Session) getWhere(p *parser) error {
	cfText, err := p.entity()
	if err != nil {
		return err
	}
	p.next() // where
	type cond struct {
		op   string
		col  string
		val  term
		colT token
	}
	var conds []cond
	for {
		ct := p.peek()
		col, err := p.term()
		if err != nil {
			return err
		}
		op := p.next()
		if _, ok := operators[op.text]; !ok {
			return p.errAt(op, "an operator")
		}
		v, err := p.term()
		if err != nil {
			return err
		}
		conds = append(conds, cond{op.text, col.text, v, ct})
		if !p.accept("and") {
			break
		}
	}
	count, err := p.limit(100)
	if err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	start := time.Now()
	name, err := s.cfName(cfText)
	if err != nil {
		return err
	}
	cf, err := s.cfDef(name)
	if err != nil {
		return err
	}
	clause := &cassandra19.IndexClause{StartKey: []byte{}, Count: count}
	for _, c := range conds {
		colName, err := s.nameBytes(cf, term{text: c.col}, false)
		if err != nil {
			return fmt.Errorf("java.lang.RuntimeException: %v", err)
		}
		var v []byte
		if c.val.call {
			v, _, err = callValue(c.val)
		} else {
			v, err = valueBytes(cf, colName, c.val.text)
		}
		if err != nil {
			return err
		}
		clause.Expressions = append(clause.Expressions, &cassandra19.IndexExpression{ColumnName: colName, Op: operators[c.op], Value: v})
	}
	slices, err := s.client.GetIndexedSlices(s.ctx, &cassandra19.ColumnParent{ColumnFamily: cf.Name}, clause,
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, s.cl)
	if err != nil {
		return why(err)
	}
	s.printSliceList(cf, slices)
	s.elapsed(start)
	return nil
}

func (s *Session) printSliceList(cf *cassandra19.CfDef, slices []*cassandra19.KeySlice) {
	kt := s.keyType(cf)
	for _, ks := range slices {
		fmt.Fprintf(s.out, "-------------------\nRowKey: %s\n", getString(kt, ks.Key))
		s.printSlice(cf, ks.Columns)
	}
	plural := ""
	if len(slices) > 1 {
		plural = "s"
	}
	fmt.Fprintf(s.out, "\n%d Row%s Returned.\n", len(slices), plural)
}

func (s *Session) countStmt(p *parser) error {
	e, err := p.cfExpr()
	if err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	t, err := s.resolve(e)
	if err != nil {
		return err
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: t.cf.Name}
	if len(e.cols) > 0 {
		if parent.SuperColumn, err = s.nameBytes(t.cf, e.cols[0], false); err != nil {
			return err
		}
	}
	n, err := s.client.GetCount(s.ctx, t.key, parent, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: math.MaxInt32}}, s.cl)
	if err != nil {
		return why(err)
	}
	fmt.Fprintf(s.out, "%d cells\n", n)
	return nil
}

func (s *Session) listStmt(p *parser) error {
	cfText, err := p.entity()
	if err != nil {
		return err
	}
	var startKey, endKey string
	if p.accept("[") {
		if !p.is(":") && !p.is("]") {
			if startKey, err = p.entity(); err != nil {
				return err
			}
		}
		if p.accept(":") && !p.is("]") {
			if endKey, err = p.entity(); err != nil {
				return err
			}
		}
		if err := p.expect("]"); err != nil {
			return err
		}
	}
	limit, cols, reversed := -1, -1, false
	if t, ok, err := p.intClause("limit"); err != nil {
		return err
	} else if ok {
		// LIST's LIMIT 0 is refused when the statement runs, after the
		// keyspace check, in other words than GET's.
		if limit, err = strconv.Atoi(t.text); err != nil {
			return fmt.Errorf("For input string: \"%s\"", t.text)
		}
	}
	if t, ok, err := p.intClause("columns"); err != nil {
		return err
	} else if ok {
		if cols, err = strconv.Atoi(t.text); err != nil || cols > math.MaxInt32 {
			fmt.Fprintf(s.err, "Invalid cell number format: %s\n", t.text)
			return nil
		}
		reversed = p.accept("reversed")
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	start := time.Now()
	name, err := s.cfName(cfText)
	if err != nil {
		return err
	}
	if limit == 0 {
		fmt.Fprintln(s.out, "Invalid limit 0")
		return nil
	}
	if limit < 0 {
		limit = 100
		fmt.Fprintln(s.out, "Using default limit of 100")
	}
	if cols < 0 {
		cols = 100
		fmt.Fprintln(s.out, "Using default cell limit of 100")
	}
	cf, err := s.cfDef(name)
	if err != nil {
		return err
	}
	// Only an assumed key type reads the range's keys; 1.2 reads them as
	// BytesType (hex) otherwise.
	kt := s.keyTypes[cf.Name]
	kr := &cassandra19.KeyRange{Count: int32(limit), StartKey: []byte{}, EndKey: []byte{}}
	if startKey != "" {
		if kr.StartKey, err = fromString(kt, startKey); err != nil {
			return err
		}
	}
	if endKey != "" {
		if kr.EndKey, err = fromString(kt, endKey); err != nil {
			return err
		}
	}
	slices, err := s.client.GetRangeSlices(s.ctx, &cassandra19.ColumnParent{ColumnFamily: cf.Name},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: int32(cols), Reversed: reversed}}, kr, s.cl)
	if err != nil {
		return why(err)
	}
	s.printSliceList(cf, slices)
	s.elapsed(start)
	return nil
}
