package cli12

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	for _, cf := range ks.CfDefs {
		for _, a := range s.assumed[cfKey{name, cf.Name}] {
			assume(cf, a)
		}
	}
	s.ksCache[name] = ks
	return ks, nil
}

// assume applies an assumption to a column family's definition.
func assume(cf *cassandra19.CfDef, a assumption) {
	class := a.class
	switch a.element {
	case "COMPARATOR":
		cf.ComparatorType = class
	case "SUB_COMPARATOR":
		cf.SubcomparatorType = &class
	case "VALIDATOR":
		cf.DefaultValidationClass = &class
	}
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
	switch element := strings.ToUpper(el.text); element {
	case "COMPARATOR", "SUB_COMPARATOR", "VALIDATOR":
		a := assumption{element, class}
		k := cfKey{s.keyspace, cf.Name}
		s.assumed[k] = append(s.assumed[k], a)
		assume(cf, a)
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
