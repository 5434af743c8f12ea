package cli12

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Exec parses and runs one statement.
func (s *Session) Exec(stmt string) error {
	toks, err := lex(stmt)
	if err != nil {
		return err
	}
	p := &parser{toks: toks, src: stmt}
	if p.peek().kind == tEOF || p.is(";") {
		return nil
	}
	if p.accept("?") {
		return s.help(p)
	}
	first := p.next()
	switch strings.ToLower(first.text) {
	case "help":
		return s.help(p)
	case "quit", "exit":
		if err := p.end(); err != nil {
			return err
		}
		return ErrQuit
	case "connect":
		return s.connectStmt(p)
	}
	// Everything else needs a connection.
	if s.client == nil {
		if err := s.Connect(s.cfg.Host, s.cfg.Port); err != nil {
			return err
		}
	}
	var run func(*parser) error
	switch strings.ToLower(first.text) {
	case "use":
		run = s.useStmt
	case "describe":
		run = s.describeStmt
	case "show":
		run = s.showStmt
	case "create":
		run = s.createStmt
	case "update":
		run = s.updateStmt
	case "drop":
		run = s.dropStmt
	case "get":
		run = s.getStmt
	case "set":
		run = s.setStmt
	case "incr":
		run = func(p *parser) error { return s.incrStmt(p, 1) }
	case "decr":
		run = func(p *parser) error { return s.incrStmt(p, -1) }
	case "count":
		run = s.countStmt
	case "del":
		run = s.delStmt
	case "list":
		run = s.listStmt
	case "truncate":
		run = s.truncateStmt
	case "assume":
		run = s.assumeStmt
	case "consistencylevel":
		run = s.consistencyStmt
	default:
		return fmt.Errorf("Syntax error at position %d: no viable alternative at input '%s'", first.pos, first.text)
	}
	err = run(p)
	if err != nil && s.trans != nil && !s.trans.IsOpen() {
		s.Close()
	}
	return err
}

func (s *Session) connectStmt(p *parser) error {
	var host strings.Builder
	for !p.is("/") {
		t := p.next()
		if t.kind == tEOF {
			return p.errAt(t, "'/'")
		}
		host.WriteString(t.text)
	}
	p.next()
	pt := p.next()
	port, err := strconv.Atoi(pt.text)
	if err != nil || pt.kind != tInt {
		return p.errAt(pt, "a port")
	}
	if err := p.end(); err != nil {
		return err
	}
	return s.Connect(host.String(), port)
}

// hasKeyspace is hasKeySpace: without a current keyspace it prints 1.2's
// line on the error writer, and the statement does nothing.
func (s *Session) hasKeyspace() bool {
	if s.keyspace == "" {
		fmt.Fprintln(s.err, "Not authorized to a working keyspace.")
		return false
	}
	return true
}

func (s *Session) ksDef(name string) (*cassandra19.KsDef, error) {
	if ks, ok := s.ksCache[name]; ok {
		return ks, nil
	}
	ks, err := s.client.DescribeKeyspace(s.ctx, name)
	if err != nil {
		return nil, why(err)
	}
	s.ksCache[name] = ks
	return ks, nil
}

// cfName is CliCompiler.getColumnFamily: the exact name, else the one
// name equal ignoring case.
func (s *Session) cfName(name string) (string, error) {
	ks, err := s.ksDef(s.keyspace)
	if err != nil {
		return "", err
	}
	matches, last := 0, ""
	for _, cf := range ks.CfDefs {
		if cf.Name == name {
			return name, nil
		}
		if strings.EqualFold(cf.Name, name) {
			matches++
			last = cf.Name
		}
	}
	if matches != 1 {
		return "", fmt.Errorf("%s not found in current keyspace.", name)
	}
	return last, nil
}

func (s *Session) cfDef(name string) (*cassandra19.CfDef, error) {
	ks, err := s.ksDef(s.keyspace)
	if err != nil {
		return nil, err
	}
	for _, cf := range ks.CfDefs {
		if cf.Name == name {
			return cf, nil
		}
	}
	return nil, fmt.Errorf("No such column family: %s", name)
}

func (s *Session) ksName(name string) (string, error) {
	kss, err := s.client.DescribeKeyspaces(s.ctx)
	if err != nil {
		return "", why(err)
	}
	matches, last := 0, ""
	for _, ks := range kss {
		if ks.Name == name {
			return name, nil
		}
		if strings.EqualFold(ks.Name, name) {
			matches++
			last = ks.Name
		}
	}
	if matches != 1 {
		return "", fmt.Errorf("Keyspace '%s' not found.", name)
	}
	return last, nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// keyType is getKeyComparatorForCF: an assumed key type, else the
// column family's key_validation_class.
func (s *Session) keyType(cf *cassandra19.CfDef) string {
	if t, ok := s.keyTypes[cf.Name]; ok {
		return t
	}
	t, err := formatType(str(cf.KeyValidationClass))
	if err != nil {
		return marshalPrefix + "BytesType"
	}
	return t
}

// callValue is convertValueByFunction: a typed function's bytes.
func callValue(t term) ([]byte, string, error) {
	class, err := functionType(t.fn)
	if err != nil {
		return nil, "", err
	}
	if t.text == "" {
		switch short(class) {
		case "TimeUUIDType":
			return newTimeUUID(), class, nil
		case "LexicalUUIDType":
			u := newTimeUUID()
			u[6] = u[6]&0x0f | 0x40
			return u, class, nil
		case "BytesType":
			return []byte{}, class, nil
		}
		return nil, "", fmt.Errorf("java.lang.RuntimeException: Argument for '%s' could not be empty.", t.fn)
	}
	b, err := fromString(class, t.text)
	if err != nil {
		return nil, "", fmt.Errorf("java.lang.RuntimeException: %v", err)
	}
	return b, class, nil
}

func (s *Session) keyBytes(cf *cassandra19.CfDef, t term) ([]byte, error) {
	if t.call {
		b, _, err := callValue(t)
		return b, err
	}
	return fromString(s.keyType(cf), t.text)
}

func (s *Session) nameBytes(cf *cassandra19.CfDef, t term, sub bool) ([]byte, error) {
	if t.call {
		b, _, err := callValue(t)
		return b, err
	}
	cmp := cf.ComparatorType
	if sub {
		cmp = str(cf.SubcomparatorType)
		if cmp == "" {
			fmt.Fprintf(s.out, "Notice: defaulting to BytesType subcomparator for '%s'\n", cf.Name)
			cmp = "BytesType"
		}
	}
	class, err := formatType(cmp)
	if err != nil {
		return nil, err
	}
	return fromString(class, t.text)
}

// validator is getValidatorForValue: the column's validation_class, else
// the default validator.
func validator(cf *cassandra19.CfDef, name []byte) string {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			c, _ := formatType(cd.ValidationClass)
			return c
		}
	}
	if d := str(cf.DefaultValidationClass); d != "" {
		c, _ := formatType(d)
		return c
	}
	return ""
}

func (s *Session) valueString(cf *cassandra19.CfDef, name, value []byte) string {
	v := validator(cf, name)
	if v == "" {
		return string(value)
	}
	return getString(v, value)
}

func nameString(cf *cassandra19.CfDef, name []byte, sub bool) string {
	cmp := cf.ComparatorType
	if sub {
		cmp = str(cf.SubcomparatorType)
	}
	c, _ := formatType(cmp)
	return getString(c, name)
}

// updateColumnMeta is updateColumnMetaData: a typed set records the
// value's type for the column in the cached schema.
func updateColumnMeta(cf *cassandra19.CfDef, name []byte, class string) {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			cd.ValidationClass = class
			return
		}
	}
	cf.ColumnMetadata = append(cf.ColumnMetadata, &cassandra19.ColumnDef{Name: name, ValidationClass: class})
}

func ttlSuffix(c *cassandra19.Column) string {
	if c.TTL != nil {
		return fmt.Sprintf(", ttl=%d", *c.TTL)
	}
	return ""
}

func isCounter(cf *cassandra19.CfDef) bool {
	return short(str(cf.DefaultValidationClass)) == "CounterColumnType"
}

// target resolves a cfExpr's column family, key and names.
type target struct {
	cf          *cassandra19.CfDef
	key         []byte
	super, name []byte
	super_      bool
}

func (s *Session) resolve(e cfExpr) (*target, error) {
	name, err := s.cfName(e.cf)
	if err != nil {
		return nil, err
	}
	cf, err := s.cfDef(name)
	if err != nil {
		return nil, err
	}
	key, err := s.keyBytes(cf, e.key)
	if err != nil {
		return nil, err
	}
	return &target{cf: cf, key: key, super_: cf.ColumnType == "Super"}, nil
}

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

func ts(c *cassandra19.Column) int64 {
	if c.Timestamp == nil {
		return 0
	}
	return *c.Timestamp
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
	limit := int32(1000000)
	if p.accept("as") {
		t := p.next()
		if t.kind == tEOF || t.kind == tPunct {
			return p.errAt(t, "a type")
		}
		asType = unescape(t.text)
	}
	if p.accept("limit") {
		t := p.next()
		n, err := strconv.Atoi(t.text)
		if err != nil || t.kind != tInt {
			return p.errAt(t, "IntegerPositiveLiteral")
		}
		if n == 0 {
			return errors.New("LIMIT should be greater than zero.")
		}
		limit = int32(min(n, math.MaxInt32))
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
	count := int32(100)
	if p.accept("limit") {
		t := p.next()
		n, err := strconv.Atoi(t.text)
		if err != nil || t.kind != tInt {
			return p.errAt(t, "IntegerPositiveLiteral")
		}
		if n == 0 {
			return errors.New("LIMIT should be greater than zero.")
		}
		count = int32(min(n, math.MaxInt32))
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

// valueBytes is columnValueAsBytes: a literal through the column's
// validation_class, else the default validator.
func valueBytes(cf *cassandra19.CfDef, name []byte, text string) ([]byte, error) {
	for _, cd := range cf.ColumnMetadata {
		if bytes.Equal(cd.Name, name) {
			class, err := formatType(cd.ValidationClass)
			if err != nil {
				return nil, err
			}
			b, err := fromString(class, text)
			if err != nil {
				return nil, fmt.Errorf("java.lang.RuntimeException: %v", err)
			}
			return b, nil
		}
	}
	class, err := formatType(str(cf.DefaultValidationClass))
	if err != nil {
		return nil, err
	}
	b, err := fromString(class, text)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "org.apache.cassandra.db.marshal.MarshalException: "))
	}
	return b, nil
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
	if p.accept("limit") {
		t := p.next()
		if t.kind != tInt {
			return p.errAt(t, "IntegerPositiveLiteral")
		}
		limit, err = strconv.Atoi(t.text)
		if err != nil {
			return fmt.Errorf("For input string: \"%s\"", t.text)
		}
	}
	if p.accept("columns") {
		t := p.next()
		if t.kind != tInt {
			return p.errAt(t, "IntegerPositiveLiteral")
		}
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

func (s *Session) consistencyStmt(p *parser) error {
	if err := p.expect("as"); err != nil {
		return err
	}
	t := p.next()
	if t.kind != tIdent {
		return p.errAt(t, "Identifier")
	}
	if err := p.end(); err != nil {
		return err
	}
	level := strings.ToUpper(t.text)
	cl, err := cassandra19.ConsistencyLevelFromString(level)
	if err != nil {
		fmt.Fprintf(s.out, "'%s' is invalid. Available: ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, ANY\n", level)
		return nil
	}
	s.cl = cl
	fmt.Fprintf(s.out, "Consistency level is set to '%s'.\n", level)
	return nil
}

func (s *Session) assumeStmt(p *parser) error {
	cfText, err := p.entity()
	if err != nil {
		return err
	}
	el := p.next()
	if el.kind != tIdent {
		return p.errAt(el, "Identifier")
	}
	if err := p.expect("as"); err != nil {
		return err
	}
	typ, err := p.entity()
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
	cf, err := s.cfDef(name)
	if err != nil {
		return nil
	}
	class, err := formatType(typ)
	if err != nil {
		fmt.Fprintf(s.out, "Type '%s' was not found. Available: %s Or any class which extends o.a.c.db.marshal.AbstractType.\n", typ, functionNames())
		return nil
	}
	switch strings.ToUpper(el.text) {
	case "COMPARATOR":
		cf.ComparatorType = class
	case "SUB_COMPARATOR":
		cf.SubcomparatorType = &class
	case "VALIDATOR":
		cf.DefaultValidationClass = &class
	case "KEYS":
		s.keyTypes[cf.Name] = class
	default:
		fmt.Fprintf(s.out, "'%s' is invalid. Available: VALIDATOR, COMPARATOR, KEYS, SUB_COMPARATOR.\n", strings.ToUpper(el.text))
		return nil
	}
	fmt.Fprintf(s.out, "Assumption for column family '%s' added successfully.\n", name)
	return nil
}

func (s *Session) useStmt(p *parser) error {
	ks, err := p.entity()
	if err != nil {
		return err
	}
	var user, pass string
	if t := p.peek(); t.kind == tIdent {
		user = p.next().text
		if pt := p.peek(); pt.kind == tString {
			pass = strings.ReplaceAll(p.next().text, "'", "")
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	return s.use(ks, user, pass, true)
}

// use makes ks the current keyspace, logging in first with a user; with
// announce it prints "Authenticated to keyspace: KS" as the use statement
// does (connecting with a keyspace prints nothing).
func (s *Session) use(ks, user, pass string, announce bool) error {
	name, err := s.ksName(ks)
	if err != nil {
		return err
	}
	if err := s.client.SetKeyspace(s.ctx, name); err != nil {
		fmt.Fprintf(s.err, "%s does not exist.\n", name)
		return nil
	}
	if user != "" && pass != "" {
		if err := s.client.Login(s.ctx, &cassandra19.AuthenticationRequest{Credentials: map[string]string{"username": user, "password": pass}}); err != nil {
			var ae *cassandra19.AuthenticationException
			if errors.As(err, &ae) {
				fmt.Fprintln(s.err, "Exception during authentication to the cassandra node: verify keyspace exists, and you are using correct credentials.")
			} else {
				fmt.Fprintf(s.err, "You are not authorized to use keyspace: %s\n", name)
			}
			return nil
		}
	}
	s.keyspace = name
	s.username = user
	delete(s.ksCache, name)
	if _, err := s.ksDef(name); err != nil {
		fmt.Fprintf(s.err, "%s does not exist.\n", name)
		return nil
	}
	if announce {
		fmt.Fprintf(s.out, "Authenticated to keyspace: %s\n", name)
	}
	return nil
}

// noJMX is the warning 1.2 prints where describe would ask the node's JMX
// for index builds: thriftd-cli asks no JMX.
func (s *Session) noJMX() {
	fmt.Fprintf(s.err, "WARNING: Could not connect to the JMX on %s:7199 - some information won't be shown.\n\n", s.host)
}

func (s *Session) printCQL3Warning(cmd string) {
	fmt.Fprintf(s.err, "\nWARNING: CQL3 tables are intentionally omitted from '%s' output.\nSee https://issues.apache.org/jira/browse/CASSANDRA-4377 for details.\n\n", cmd)
}

func (s *Session) describeStmt(p *parser) error {
	if p.accept("cluster") {
		if err := p.end(); err != nil {
			return err
		}
		return s.describeCluster()
	}
	var entity string
	if t := p.peek(); t.kind != tEOF && !p.is(";") {
		var err error
		if entity, err = p.entity(); err != nil {
			return err
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	s.printCQL3Warning("describe")
	if s.keyspace == "" && entity == "" {
		fmt.Fprintln(s.out, "Authenticate to a Keyspace, before using `describe` or `describe <column_family>`")
		return nil
	}
	var current *cassandra19.KsDef
	if s.keyspace != "" {
		delete(s.ksCache, s.keyspace)
		var err error
		if current, err = s.ksDef(s.keyspace); err != nil {
			return err
		}
	}
	if entity == "" {
		s.noJMX()
		s.describeKeyspace(current)
		return nil
	}
	kss, err := s.client.DescribeKeyspaces(s.ctx)
	if err != nil {
		return why(err)
	}
	for _, ks := range kss {
		if ks.Name == entity {
			s.noJMX()
			s.describeKeyspace(ks)
			return nil
		}
	}
	if current == nil {
		return fmt.Errorf("Keyspace with name '%s' wasn't found, to lookup ColumnFamily with that name, please, authorize to one of the keyspaces first.", entity)
	}
	for _, cf := range current.CfDefs {
		if cf.Name == entity {
			s.noJMX()
			s.describeCF(cf)
			return nil
		}
	}
	fmt.Fprintf(s.out, "Sorry, no Keyspace nor (non-CQL3) ColumnFamily was found with name: %s (if this is a CQL3 table, you should use cqlsh instead)\n", entity)
	return nil
}

func (s *Session) describeCluster() error {
	fmt.Fprintln(s.out, "Cluster Information:")
	name, err := s.client.DescribeClusterName(s.ctx)
	if err == nil {
		fmt.Fprintf(s.out, "   Name: %s\n", name)
		var snitch, part string
		if snitch, err = s.client.DescribeSnitch(s.ctx); err == nil {
			fmt.Fprintf(s.out, "   Snitch: %s\n", snitch)
			if part, err = s.client.DescribePartitioner(s.ctx); err == nil {
				fmt.Fprintf(s.out, "   Partitioner: %s\n", part)
				fmt.Fprintln(s.out, "   Schema versions: ")
				var versions map[string][]string
				if versions, err = s.client.DescribeSchemaVersions(s.ctx); err == nil {
					for v, hosts := range versions {
						fmt.Fprintf(s.out, "\t%s: [%s]\n\n", v, strings.Join(hosts, ", "))
					}
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintf(s.err, "Error retrieving data: %v\n", why(err))
	}
	return nil
}

// javaMap is AbstractMap.toString: {k=v, k=v}.
func javaMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *Session) describeKeyspace(ks *cassandra19.KsDef) {
	fmt.Fprintf(s.out, "Keyspace: %s:\n", ks.Name)
	fmt.Fprintf(s.out, "  Replication Strategy: %s\n", ks.StrategyClass)
	fmt.Fprintf(s.out, "  Durable Writes: %t\n", ks.DurableWrites)
	var opts []string
	for _, k := range sortedKeys(ks.StrategyOptions) {
		opts = append(opts, k+":"+ks.StrategyOptions[k])
	}
	fmt.Fprintf(s.out, "    Options: [%s]\n", strings.Join(opts, ", "))
	fmt.Fprintln(s.out, "  Column Families:")
	cfs := append([]*cassandra19.CfDef(nil), ks.CfDefs...)
	sort.Slice(cfs, func(i, j int) bool { return cfs[i].Name < cfs[j].Name })
	for _, cf := range cfs {
		s.describeCF(cf)
	}
}

func (s *Session) describeCF(cf *cassandra19.CfDef) {
	w := s.out
	super := cf.ColumnType == "Super"
	suffix := ""
	if super {
		suffix = " (Super)"
	}
	fmt.Fprintf(w, "    ColumnFamily: %s%s\n", cf.Name, suffix)
	if c := str(cf.Comment); c != "" {
		fmt.Fprintf(w, "    \"%s\"\n", c)
	}
	if cf.KeyValidationClass != nil {
		fmt.Fprintf(w, "      Key Validation Class: %s\n", *cf.KeyValidationClass)
	}
	if cf.DefaultValidationClass != nil {
		fmt.Fprintf(w, "      Default column value validator: %s\n", *cf.DefaultValidationClass)
	}
	sorted := cf.ComparatorType
	if super {
		sorted += "/" + str(cf.SubcomparatorType)
	}
	fmt.Fprintf(w, "      Cells sorted by: %s\n", sorted)
	fmt.Fprintf(w, "      GC grace seconds: %s\n", i32(cf.GcGraceSeconds))
	fmt.Fprintf(w, "      Compaction min/max thresholds: %s/%s\n", i32(cf.MinCompactionThreshold), i32(cf.MaxCompactionThreshold))
	fmt.Fprintf(w, "      Read repair chance: %s\n", f64(cf.ReadRepairChance))
	fmt.Fprintf(w, "      DC Local Read repair chance: %s\n", javaDouble(cf.DclocalReadRepairChance))
	fmt.Fprintf(w, "      Populate IO Cache on flush: %t\n", cf.PopulateIoCacheOnFlush != nil && *cf.PopulateIoCacheOnFlush)
	fmt.Fprintf(w, "      Replicate on write: %s\n", boolStr(cf.ReplicateOnWrite))
	fmt.Fprintf(w, "      Caching: %s\n", cf.Caching)
	bf := "default"
	if cf.BloomFilterFpChance != nil {
		bf = javaDouble(*cf.BloomFilterFpChance)
	}
	fmt.Fprintf(w, "      Bloom Filter FP chance: %s\n", bf)
	if len(cf.ColumnMetadata) > 0 {
		cmp := cf.ComparatorType
		if super {
			cmp = str(cf.SubcomparatorType)
		}
		class, _ := formatType(cmp)
		fmt.Fprintln(w, "      Column Metadata:")
		for _, cd := range cf.ColumnMetadata {
			name := getString(class, cd.Name)
			if short(class) == "BytesType" && validUTF8(cd.Name) {
				name = string(cd.Name) + " (" + name + ")"
			}
			fmt.Fprintf(w, "        Column Name: %s\n", name)
			fmt.Fprintf(w, "          Validation Class: %s\n", cd.ValidationClass)
			if cd.IndexName != nil {
				fmt.Fprintf(w, "          Index Name: %s\n", *cd.IndexName)
			}
			if cd.IndexType != nil {
				fmt.Fprintf(w, "          Index Type: %s\n", cd.IndexType.String())
			}
			if cd.IndexOptions != nil {
				fmt.Fprintf(w, "          Index Options: %s\n", javaMap(cd.IndexOptions))
			}
		}
	}
	fmt.Fprintf(w, "      Compaction Strategy: %s\n", str(cf.CompactionStrategy))
	if len(cf.CompactionStrategyOptions) > 0 {
		fmt.Fprintln(w, "      Compaction Strategy Options:")
		for _, k := range sortedKeys(cf.CompactionStrategyOptions) {
			fmt.Fprintf(w, "        %s: %s\n", k, cf.CompactionStrategyOptions[k])
		}
	}
	if len(cf.CompressionOptions) > 0 {
		fmt.Fprintln(w, "      Compression Options:")
		for _, k := range sortedKeys(cf.CompressionOptions) {
			fmt.Fprintf(w, "        %s: %s\n", k, cf.CompressionOptions[k])
		}
	}
}

func validUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

func i32(p *int32) string {
	if p == nil {
		return "0"
	}
	return strconv.Itoa(int(*p))
}

func f64(p *float64) string {
	if p == nil {
		return "0.0"
	}
	return javaDouble(*p)
}

func boolStr(p *bool) string {
	return strconv.FormatBool(p != nil && *p)
}
