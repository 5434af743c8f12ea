package cli12

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

func (s *Session) setStmt(p *parser) error {
	e, err := p.cfExpr()
	if err != nil {
		return err
	}
	if err := p.expect("="); err != nil {
		return err
	}
	v, err := p.term()
	if err != nil {
		return err
	}
	var ttl *int32
	if p.accept("with") {
		if err := p.expect("ttl"); err != nil {
			return err
		}
		if err := p.expect("="); err != nil {
			return err
		}
		t := p.next()
		n, err := strconv.ParseInt(t.text, 10, 32)
		if t.kind != tInt {
			return p.errAt(t, "IntegerPositiveLiteral")
		}
		if err != nil {
			fmt.Fprintf(s.err, "TTL '%s' is invalid, should be a positive integer.\n", t.text)
			return nil
		}
		n32 := int32(n)
		ttl = &n32
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	start := time.Now()
	name, err := s.cfName(e.cf)
	if err != nil {
		return err
	}
	cf, err := s.cfDef(name)
	if err != nil {
		return err
	}
	var super, col []byte
	switch len(e.cols) {
	case 0:
		fmt.Fprintln(s.err, "No cell name specified, (type 'help;' or '?' for help on syntax).")
		return nil
	case 1:
		if cf.ColumnType == "Super" {
			fmt.Fprintf(s.out, "Column family %s may only contain SuperColumns\n", cf.Name)
			return nil
		}
		if col, err = s.nameBytes(cf, e.cols[0], false); err != nil {
			return wrapRT(err)
		}
	case 2:
		if super, err = s.nameBytes(cf, e.cols[0], false); err != nil {
			return wrapRT(err)
		}
		if col, err = s.nameBytes(cf, e.cols[1], true); err != nil {
			return wrapRT(err)
		}
	}
	var value []byte
	if v.call {
		var class string
		if value, class, err = callValue(v); err != nil {
			return err
		}
		updateColumnMeta(cf, col, class)
	} else if value, err = valueBytes(cf, col, v.text); err != nil {
		return err
	}
	key, err := s.keyBytes(cf, e.key)
	if err != nil {
		return wrapRT(err)
	}
	now := time.Now().UnixMicro()
	c := &cassandra19.Column{Name: col, Value: value, Timestamp: &now, TTL: ttl}
	if err := s.client.Insert(s.ctx, key, &cassandra19.ColumnParent{ColumnFamily: cf.Name, SuperColumn: super}, c, s.cl); err != nil {
		return why(err)
	}
	fmt.Fprintln(s.out, "Value inserted.")
	s.elapsed(start)
	return nil
}

// wrapRT is a MarshalException thrown as a RuntimeException's cause.
func wrapRT(err error) error {
	if strings.HasPrefix(err.Error(), "org.apache.cassandra.db.marshal.MarshalException: ") {
		return err
	}
	return err
}

func (s *Session) incrStmt(p *parser, sign int64) error {
	e, err := p.cfExpr()
	if err != nil {
		return err
	}
	by := int64(1)
	if p.accept("by") {
		t := p.next()
		if t.kind != tInt && t.kind != tNegInt {
			return p.errAt(t, "an integer")
		}
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			fmt.Fprintf(s.err, "'%s' is an invalid value, should be an integer.\n", t.text)
			return nil
		}
		by = n
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
	var col []byte
	switch len(e.cols) {
	case 1:
		col, err = s.nameBytes(t.cf, e.cols[0], false)
	case 2:
		if t.super, err = s.nameBytes(t.cf, e.cols[0], false); err == nil {
			col, err = s.nameBytes(t.cf, e.cols[1], true)
		}
	default:
		fmt.Fprintln(s.out, "Invalid row, super column, or column specification.")
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.client.Add(s.ctx, t.key, &cassandra19.ColumnParent{ColumnFamily: t.cf.Name, SuperColumn: t.super},
		&cassandra19.CounterColumn{Name: col, Value: sign * by}, s.cl); err != nil {
		return why(err)
	}
	if sign < 0 {
		fmt.Fprintln(s.out, "Value decremented.")
	} else {
		fmt.Fprintln(s.out, "Value incremented.")
	}
	return nil
}

func (s *Session) delStmt(p *parser) error {
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
	start := time.Now()
	path := &cassandra19.ColumnPath{ColumnFamily: t.cf.Name}
	switch len(e.cols) {
	case 1:
		n, err := s.nameBytes(t.cf, e.cols[0], false)
		if err != nil {
			return err
		}
		if t.super_ {
			path.SuperColumn = n
		} else {
			path.Column = n
		}
	case 2:
		if path.SuperColumn, err = s.nameBytes(t.cf, e.cols[0], false); err != nil {
			return err
		}
		if path.Column, err = s.nameBytes(t.cf, e.cols[1], true); err != nil {
			return err
		}
	}
	if isCounter(t.cf) {
		err = s.client.RemoveCounter(s.ctx, t.key, path, s.cl)
	} else {
		err = s.client.Remove(s.ctx, t.key, path, time.Now().UnixMicro(), s.cl)
	}
	if err != nil {
		return why(err)
	}
	if len(e.cols) == 0 {
		fmt.Fprintln(s.out, "row removed.")
	} else {
		fmt.Fprintln(s.out, "cell removed.")
	}
	s.elapsed(start)
	return nil
}

func (s *Session) truncateStmt(p *parser) error {
	cfText, err := p.entity()
	if err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	if !s.hasKeyspace() {
		return nil
	}
	name, err := s.cfName(cfText)
	if err != nil {
		return err
	}
	if err := s.client.Truncate(s.ctx, name); err != nil {
		return why(err)
	}
	fmt.Fprintf(s.out, "%s truncated.\n", cfText)
	return nil
}
