package handler19

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// The checks of Cassandra 1.2's ThriftValidation, one function each, with
// its messages. The calls run them in the real server's order, so that a
// request with several faults is refused for the same one.

// maxNameLength is IColumn.MAX_NAME_LENGTH, and the longest key.
const maxNameLength = 65535

// maxTTL is ExpiringColumn.MAX_TTL: 20 years, in seconds.
const maxTTL = 20 * 365 * 24 * 60 * 60

// counterType is the name of the commutative default validator.
const counterType = "org.apache.cassandra.db.marshal.CounterColumnType"

// msgNoKeyspace is ClientState.getKeyspace's refusal in 2.0 to 3.11.
const msgNoKeyspace = "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"

// keyspaceOf is ClientState.getKeyspace, the first step of every data call,
// in 2.0-2.1's words (1.2 said "no keyspace has been specified").
func (c *conn) keyspaceOf() (string, error) {
	if c.keyspace == "" {
		return "", invalid(msgNoKeyspace)
	}
	return c.keyspace, nil
}

// checkAccess is ClientState.hasColumnFamilyAccess of family f of
// keyspace, which the call has validated first (the real server validated
// the family there, with the same message): the login, then the user's
// permission on the table. Without a Guard it checks nothing.
func (c *conn) checkAccess(ctx context.Context, keyspace string, f *family, perm auth.Permission) error {
	if c.s.guard == nil {
		return nil
	}
	return c.permit(ctx, perm, auth.TableResource(keyspace, f.Name))
}

// permit is ClientState.hasAccess after its keyspace check: the login,
// the protection of the server's keyspaces from schema changes, then the
// user's permission on r.
func (c *conn) permit(ctx context.Context, perm auth.Permission, r auth.Resource) error {
	g := c.s.guard
	if g == nil {
		return nil
	}
	if err := g.CheckLogin(&c.a); err != nil {
		return err
	}
	if ks := r.Keyspace(); ks != "" && (perm == auth.Create || perm == auth.Alter || perm == auth.Drop) {
		// preventSystemKSSchemaModification: system_auth and
		// system_traces may be altered, nothing else of theirs changed.
		lower := strings.ToLower(ks)
		if lower == "system" || (systemKeyspaces[lower] && perm != auth.Alter) {
			return &auth.UnauthorizedError{Why: ks + " keyspace is not user-modifiable."}
		}
	}
	return g.Check(ctx, &c.a, c.call, perm, r)
}

// validateColumnFamily is ThriftValidation.validateColumnFamily without the
// commutative check.
func (s *Service) validateColumnFamily(sch *schema.Schema, keyspace, name string) (*family, error) {
	ks := sch.Keyspace(keyspace)
	if ks == nil {
		return nil, invalid("Keyspace %s does not exist", keyspace)
	}
	if name == "" {
		return nil, invalid("non-empty columnfamily is required")
	}
	cf := ks.ColumnFamilies[name]
	if cf == nil {
		return nil, invalid("unconfigured columnfamily %s", name)
	}
	return s.familyOf(sch, keyspace, cf), nil
}

// validateCommutative is the commutative check of
// ThriftValidation.validateColumnFamily: counter operations on counter
// families only, and the rest on the others.
func validateCommutative(f *family, counterOp bool) error {
	switch {
	case counterOp && !f.commutative():
		return invalid("invalid operation for non commutative columnfamily %s", f.Name)
	case !counterOp && f.commutative():
		return invalid("invalid operation for commutative columnfamily %s", f.Name)
	}
	return nil
}

// validateKey is ThriftValidation.validateKey.
func validateKey(f *family, key []byte) error {
	if len(key) == 0 {
		return invalid("Key may not be empty")
	}
	if len(key) > maxNameLength {
		return invalid("Key length of %d is longer than maximum of %d", len(key), maxNameLength)
	}
	return validateWith(f.keyValidator, key)
}

// validateWith runs a type's validation, its MarshalException message
// becoming the request's.
func validateWith(t marshal.Comparator, b []byte) error {
	if t == nil {
		return nil
	}
	if err := t.Validate(b); err != nil {
		return marshalError(err)
	}
	return nil
}

func marshalError(err error) error {
	var me marshal.MarshalError
	if errors.As(err, &me) {
		return invalid("%s", string(me))
	}
	return invalid("%s", err.Error())
}

// validateColumnNames is ThriftValidation.validateColumnNames.
func validateColumnNames(f *family, superColumn []byte, names [][]byte) error {
	if superColumn != nil {
		if len(superColumn) > maxNameLength {
			return invalid("supercolumn name length must not be greater than %d", maxNameLength)
		}
		if len(superColumn) == 0 {
			return invalid("supercolumn name must not be empty")
		}
		if !f.Super {
			return invalid("supercolumn specified to ColumnFamily %s containing normal columns", f.Name)
		}
	}
	cmp := f.comparatorFor(superColumn)
	for _, name := range names {
		if len(name) > maxNameLength {
			return invalid("column name length must not be greater than %d", maxNameLength)
		}
		if len(name) == 0 {
			return invalid("column name must not be empty")
		}
		if err := validateWith(cmp, name); err != nil {
			return err
		}
	}
	return nil
}

// validateColumnPath is ThriftValidation.validateColumnPath.
func validateColumnPath(f *family, p *cassandra19.ColumnPath) error {
	if !f.Super {
		if p.SuperColumn != nil {
			return invalid("supercolumn parameter is invalid for standard CF %s", f.Name)
		}
		if p.Column == nil {
			return invalid("column parameter is not optional for standard CF %s", f.Name)
		}
	} else if p.SuperColumn == nil {
		return invalid("supercolumn parameter is not optional for super CF %s", f.Name)
	}
	if p.Column != nil {
		if err := validateColumnNames(f, p.SuperColumn, [][]byte{p.Column}); err != nil {
			return err
		}
	}
	if p.SuperColumn != nil {
		return validateColumnNames(f, nil, [][]byte{p.SuperColumn})
	}
	return nil
}

// validateColumnParent is ThriftValidation.validateColumnParent.
func validateColumnParent(f *family, p *cassandra19.ColumnParent) error {
	if !f.Super && p.SuperColumn != nil {
		return invalid("columnfamily alone is required for standard CF %s", f.Name)
	}
	if p.SuperColumn != nil {
		return validateColumnNames(f, nil, [][]byte{p.SuperColumn})
	}
	return nil
}

// validateColumnPathOrParent is ThriftValidation.validateColumnPathOrParent:
// remove's path, where the column is optional even for a standard family.
func validateColumnPathOrParent(f *family, p *cassandra19.ColumnPath) error {
	if !f.Super && p.SuperColumn != nil {
		return invalid("supercolumn may not be specified for standard CF %s", f.Name)
	}
	if f.Super && p.SuperColumn == nil && p.Column != nil {
		return invalid("A column cannot be specified without specifying a super column for removal on super CF %s", f.Name)
	}
	if p.Column != nil {
		if err := validateColumnNames(f, p.SuperColumn, [][]byte{p.Column}); err != nil {
			return err
		}
	}
	if p.SuperColumn != nil {
		return validateColumnNames(f, nil, [][]byte{p.SuperColumn})
	}
	return nil
}

// validateRange is ThriftValidation.validateRange.
func validateRange(f *family, superColumn []byte, r *cassandra19.SliceRange) error {
	if r.Count < 0 {
		return invalid("get_slice requires non-negative count")
	}
	if len(r.Start) > maxNameLength {
		return invalid("range start length cannot be larger than %d", maxNameLength)
	}
	if len(r.Finish) > maxNameLength {
		return invalid("range finish length cannot be larger than %d", maxNameLength)
	}
	cmp := f.comparatorFor(superColumn)
	if err := validateWith(cmp, r.Start); err != nil {
		return err
	}
	if err := validateWith(cmp, r.Finish); err != nil {
		return err
	}
	if len(r.Start) > 0 && len(r.Finish) > 0 {
		c := cmp.Compare(r.Start, r.Finish)
		if r.Reversed {
			c = -c
		}
		if c > 0 {
			return invalid("range finish must come after start in the order of traversal")
		}
	}
	return nil
}

// validatePredicate is ThriftValidation.validatePredicate.
func validatePredicate(f *family, superColumn []byte, p *cassandra19.SlicePredicate) error {
	if p.ColumnNames == nil && p.SliceRange == nil {
		return invalid("predicate column_names and slice_range may not both be null")
	}
	if p.ColumnNames != nil && p.SliceRange != nil {
		return invalid("predicate column_names and slice_range may not both be present")
	}
	if p.SliceRange != nil {
		return validateRange(f, superColumn, p.SliceRange)
	}
	return validateColumnNames(f, superColumn, p.ColumnNames)
}

// validateSlicePredicate is ThriftValidation.validateSlicePredicate, the
// looser check of a deletion's predicate.
func validateSlicePredicate(f *family, superColumn []byte, p *cassandra19.SlicePredicate) error {
	if p.ColumnNames == nil && p.SliceRange == nil {
		return invalid("A SlicePredicate must be given a list of Columns, a SliceRange, or both")
	}
	if p.SliceRange != nil {
		if err := validateRange(f, superColumn, p.SliceRange); err != nil {
			return err
		}
	}
	if p.ColumnNames != nil {
		return validateColumnNames(f, superColumn, p.ColumnNames)
	}
	return nil
}

// validateTTL is ThriftValidation.validateTtl.
func validateTTL(c *cassandra19.Column) error {
	if c.TTL == nil {
		return nil
	}
	if *c.TTL <= 0 {
		return invalid("ttl must be positive")
	}
	if *c.TTL > maxTTL {
		return invalid("ttl is too large. requested (%d) maximum (%d)", *c.TTL, maxTTL)
	}
	return nil
}

// validateColumnData is ThriftValidation.validateColumnData: everything of
// a column but its name.
func (s *Service) validateColumnData(f *family, c *cassandra19.Column, subColumn bool) error {
	if err := validateTTL(c); err != nil {
		return err
	}
	if c.Value == nil {
		return invalid("Column value is required")
	}
	if c.Timestamp == nil {
		return invalid("Column timestamp is required")
	}
	if err := validateWith(f.valueValidator(c.Name), c.Value); err != nil {
		nameType := f.cmp
		if subColumn {
			nameType = f.subCmp
		}
		return invalid("(%s) [%s][%s][%s] failed validation", err.Error(), f.Keyspace, f.Name, typeString(nameType, c.Name))
	}
	// 1.2's KEYS index held values shorter than an unsigned short.
	if ix := indexOf(f, c.Name); !subColumn && ix != nil && len(c.Value) >= maxIndexedValue {
		name := ix.Name
		if name == "" {
			name = "null"
		}
		return invalid("Can't index column value of size %d for index %s in CF %s of KS %s", len(c.Value), name, f.Name, f.Keyspace)
	}
	return nil
}

// maxIndexedValue bounds the values of an indexed column (exclusive).
const maxIndexedValue = 65535

// typeString is AbstractType.getString: a value as its type prints it.
func typeString(t marshal.Comparator, b []byte) string {
	if p, ok := t.(interface{ String([]byte) string }); ok {
		return p.String(b)
	}
	return hex.EncodeToString(b)
}

// validateColumnOrSuperColumn is ThriftValidation.validateColumnOrSuperColumn.
func (s *Service) validateColumnOrSuperColumn(f *family, c *cassandra19.ColumnOrSuperColumn) error {
	set := 0
	for _, present := range []bool{c.Column != nil, c.SuperColumn != nil, c.CounterColumn != nil, c.CounterSuperColumn != nil} {
		if present {
			set++
		}
	}
	if set != 1 {
		return invalid("ColumnOrSuperColumn must have one (and only one) of column, super_column, counter and counter_super_column")
	}
	switch {
	case c.Column != nil:
		if f.commutative() {
			return invalid("invalid operation for commutative columnfamily %s", f.Name)
		}
		if err := validateTTL(c.Column); err != nil {
			return err
		}
		if err := validateColumnPath(f, &cassandra19.ColumnPath{ColumnFamily: f.Name, Column: c.Column.Name}); err != nil {
			return err
		}
		return s.validateColumnData(f, c.Column, false)
	case c.SuperColumn != nil:
		if f.commutative() {
			return invalid("invalid operation for commutative columnfamily %s", f.Name)
		}
		for _, sub := range c.SuperColumn.Columns {
			if err := validateColumnPath(f, &cassandra19.ColumnPath{ColumnFamily: f.Name, SuperColumn: c.SuperColumn.Name, Column: sub.Name}); err != nil {
				return err
			}
			if err := s.validateColumnData(f, sub, true); err != nil {
				return err
			}
		}
	case c.CounterColumn != nil:
		if !f.commutative() {
			return invalid("invalid operation for non commutative columnfamily %s", f.Name)
		}
		return validateColumnPath(f, &cassandra19.ColumnPath{ColumnFamily: f.Name, Column: c.CounterColumn.Name})
	case c.CounterSuperColumn != nil:
		if !f.commutative() {
			return invalid("invalid operation for non commutative columnfamily %s", f.Name)
		}
		for _, sub := range c.CounterSuperColumn.Columns {
			if err := validateColumnPath(f, &cassandra19.ColumnPath{ColumnFamily: f.Name, SuperColumn: c.CounterSuperColumn.Name, Column: sub.Name}); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateMutation is ThriftValidation.validateMutation.
func (s *Service) validateMutation(f *family, m *cassandra19.Mutation) error {
	if (m.ColumnOrSupercolumn == nil) == (m.Deletion == nil) {
		return invalid("mutation must have one and only one of column_or_supercolumn or deletion")
	}
	if m.ColumnOrSupercolumn != nil {
		return s.validateColumnOrSuperColumn(f, m.ColumnOrSupercolumn)
	}
	return validateDeletion(f, m.Deletion)
}

// validateDeletion is ThriftValidation.validateDeletion.
func validateDeletion(f *family, d *cassandra19.Deletion) error {
	if d.SuperColumn != nil {
		if err := validateColumnNames(f, nil, [][]byte{d.SuperColumn}); err != nil {
			return err
		}
	}
	if d.Predicate != nil {
		// A SliceRange is a range deletion, which 2.0 added (CASSANDRA-5435)
		// and 1.2 refused ("Deletion does not yet support SliceRange
		// predicates."): served as 2.1 serves it (write.go, appendRangeDeletion).
		if err := validateSlicePredicate(f, d.SuperColumn, d.Predicate); err != nil {
			return err
		}
	}
	if !f.Super && d.SuperColumn != nil {
		return invalid("Deletion of super columns is not possible on a standard ColumnFamily (KeySpace=%s ColumnFamily=%s Deletion=%s)", f.Keyspace, f.Name, deletionString(d))
	}
	if !f.commutative() && d.Timestamp == nil {
		return invalid("Deletion timestamp is not optional for non commutative column family %s", f.Name)
	}
	return nil
}

// deletionString is the Java toString of a Deletion, as the real server
// put it in a message.
func deletionString(d *cassandra19.Deletion) string {
	s := "Deletion("
	sep := ""
	if d.Timestamp != nil {
		s += "timestamp:" + itoa(*d.Timestamp)
		sep = ", "
	}
	if d.SuperColumn != nil {
		s += sep + "super_column:" + javaBinary(d.SuperColumn)
		sep = ", "
	}
	if d.Predicate != nil {
		s += sep + "predicate:" + predicateString(d.Predicate)
	}
	return s + ")"
}

// validateConsistencyForRead is ConsistencyLevel.validateForRead.
func validateConsistencyForRead(cl cassandra19.ConsistencyLevel) error {
	switch cl {
	case cassandra19.ConsistencyLevel_ANY:
		return invalid("ANY ConsistencyLevel is only supported for writes")
	case cassandra19.ConsistencyLevel_EACH_QUORUM:
		return invalid("EACH_QUORUM ConsistencyLevel is only supported for writes")
	}
	return nil
}

// assureReplicas is ConsistencyLevel.assureSufficientLiveNodes for a
// server that holds every replica of every row and never has one down:
// only a level that asks more replicas than the keyspace keeps (TWO or
// THREE with a smaller replication factor) cannot be met, and is answered
// UnavailableException, as a 1.2 cluster of that size answered it. It runs
// when the real server ran it, after every check of the request. ANY
// never waits for a replica.
func (c *conn) assureReplicas(keyspace string, cl cassandra19.ConsistencyLevel) error {
	need := 0
	switch cl {
	case cassandra19.ConsistencyLevel_TWO:
		need = 2
	case cassandra19.ConsistencyLevel_THREE:
		need = 3
	default:
		return nil
	}
	if need > replicationFactor(c.s.schema().Keyspace(keyspace)) {
		return fmt.Errorf("cannot achieve consistency level %s: %w", cl, engine.ErrUnavailable)
	}
	return nil
}

// replicationFactor is a keyspace's replica count as its strategy gave it:
// the replication_factor option (SimpleStrategy), else the sum of the
// data centres' counts (NetworkTopologyStrategy), else the 0.6 setting.
func replicationFactor(ks *schema.Keyspace) int {
	if ks == nil {
		return 1
	}
	opts := ks.Options.StrategyOptions
	if n, err := strconv.Atoi(opts["replication_factor"]); err == nil {
		return n
	}
	sum, found := 0, false
	for _, v := range opts {
		if n, err := strconv.Atoi(v); err == nil {
			sum += n
			found = true
		}
	}
	if found {
		return sum
	}
	return max(ks.ReplicationFactor, 1)
}

// parentFamily is the column family parent names; "" for none.
func parentFamily(parent *cassandra19.ColumnParent) string {
	if parent == nil {
		return ""
	}
	return parent.ColumnFamily
}

// pathFamily is the column family path names; "" for none.
func pathFamily(path *cassandra19.ColumnPath) string {
	if path == nil {
		return ""
	}
	return path.ColumnFamily
}
