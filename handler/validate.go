package handler

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// This file is 0.6's ThriftValidation: one function per check, each with
// 0.6's exact message, called by the service methods in 0.6's order (spec
// 4.3) before anything is read or written. Where 0.6 crashed instead of
// answering (spec 16.3), the added check says so in its comment.

// maxNameLength is IColumn.MAX_NAME_LENGTH: names are written with a
// 2-byte length.
const maxNameLength = 0xffff

// validator checks requests against one schema.
type validator struct {
	schema  *schema.Schema
	current func() *schema.Schema // nil: schema
}

// sch is the current schema.
func (v validator) sch() *schema.Schema {
	if v.current != nil {
		return v.current()
	}
	return v.schema
}

// validateTable is ThriftValidation.validateTable. The system keyspace
// passes: it is readable.
func (v validator) validateTable(keyspace string) (*schema.Keyspace, error) {
	ks := v.sch().Keyspace(keyspace)
	if ks == nil {
		return nil, invalid("Keyspace %s does not exist in this schema.", keyspace)
	}
	return ks, nil
}

// validateColumnFamily is ThriftValidation.validateColumnFamily.
func validateColumnFamily(ks *schema.Keyspace, name string) (*schema.ColumnFamily, error) {
	if name == "" {
		return nil, invalid("non-empty columnfamily is required")
	}
	cf := ks.ColumnFamilies[name]
	if cf == nil {
		return nil, invalid("unconfigured columnfamily %s", name)
	}
	return cf, nil
}

// columnFamily runs validateTable then validateColumnFamily, the first two
// steps of every path and parent check.
func (v validator) columnFamily(keyspace, name string) (*schema.ColumnFamily, error) {
	ks, err := v.validateTable(keyspace)
	if err != nil {
		return nil, err
	}
	return validateColumnFamily(ks, name)
}

// validateColumnPath is ThriftValidation.validateColumnPath (get, multiget,
// insert, and every column of batch_insert and batch_mutate).
func (v validator) validateColumnPath(keyspace string, path *cassandra.ColumnPath) (*schema.ColumnFamily, error) {
	cf, err := v.columnFamily(keyspace, javaString(path.ColumnFamily))
	if err != nil {
		return nil, err
	}
	if !cf.Super {
		if path.SuperColumn != nil {
			return nil, invalid("supercolumn parameter is invalid for standard CF %s", cf.Name)
		}
		if path.Column == nil {
			return nil, invalid("column parameter is not optional for standard CF %s", cf.Name)
		}
	} else if path.SuperColumn == nil {
		return nil, invalid("supercolumn parameter is not optional for super CF %s", cf.Name)
	}
	if err := validateNames(cf, path.SuperColumn, path.Column); err != nil {
		return nil, err
	}
	return cf, nil
}

// validateNames is the tail shared by validateColumnPath and
// validateColumnPathOrParent: the column name under the super column (if
// any), then the super column name as a top-level name.
func validateNames(cf *schema.ColumnFamily, superColumn, column []byte) error {
	if column != nil {
		if err := validateColumns(cf, superColumn, [][]byte{column}); err != nil {
			return err
		}
	}
	if superColumn != nil {
		if err := validateColumns(cf, nil, [][]byte{superColumn}); err != nil {
			return err
		}
	}
	return nil
}

// validateColumnParent is ThriftValidation.validateColumnParent (get_slice,
// multiget_slice, get_count, range slices).
func (v validator) validateColumnParent(keyspace string, parent *cassandra.ColumnParent) (*schema.ColumnFamily, error) {
	cf, err := v.columnFamily(keyspace, javaString(parent.ColumnFamily))
	if err != nil {
		return nil, err
	}
	if !cf.Super && parent.SuperColumn != nil {
		return nil, invalid("columnfamily alone is required for standard CF %s", cf.Name)
	}
	if parent.SuperColumn != nil {
		if err := validateColumns(cf, nil, [][]byte{parent.SuperColumn}); err != nil {
			return nil, err
		}
	}
	return cf, nil
}

// validateColumnPathOrParent is ThriftValidation.validateColumnPathOrParent
// (remove, where the path may stop at any level).
func (v validator) validateColumnPathOrParent(keyspace string, path *cassandra.ColumnPath) (*schema.ColumnFamily, error) {
	cf, err := v.columnFamily(keyspace, javaString(path.ColumnFamily))
	if err != nil {
		return nil, err
	}
	if !cf.Super && path.SuperColumn != nil {
		return nil, invalid("supercolumn may not be specified for standard CF %s", cf.Name)
	}
	if cf.Super && path.Column != nil && path.SuperColumn == nil {
		return nil, invalid("A column cannot be specified without specifying a super column for removal on super CF %s", cf.Name)
	}
	if err := validateNames(cf, path.SuperColumn, path.Column); err != nil {
		return nil, err
	}
	return cf, nil
}

// nameComparator is ColumnFamily.getComparatorFor: subcolumn names are
// ordered by the subcomparator, everything else by the CF comparator.
func nameComparator(cf *schema.ColumnFamily, superColumn []byte) marshal.Comparator {
	if superColumn != nil {
		return cf.SubComparator
	}
	return cf.Comparator
}

// checkSuperColumnName is the super column half of 0.6's validateColumns.
func checkSuperColumnName(cf *schema.ColumnFamily, superColumn []byte) error {
	if len(superColumn) > maxNameLength {
		return invalid("supercolumn name length must not be greater than %d", maxNameLength)
	}
	if len(superColumn) == 0 {
		return invalid("supercolumn name must not be empty")
	}
	if !cf.Super {
		return invalid("supercolumn specified to ColumnFamily %s containing normal columns", cf.Name)
	}
	return nil
}

// validateColumns is ThriftValidation's private validateColumns: names are
// subcolumns of superColumn when it is non-nil, top-level names otherwise.
func validateColumns(cf *schema.ColumnFamily, superColumn []byte, names [][]byte) error {
	if superColumn != nil {
		if err := checkSuperColumnName(cf, superColumn); err != nil {
			return err
		}
	}
	cmp := nameComparator(cf, superColumn)
	for _, name := range names {
		if len(name) > maxNameLength {
			return invalid("column name length must not be greater than %d", maxNameLength)
		}
		if len(name) == 0 {
			return invalid("column name must not be empty")
		}
		if err := cmp.Validate(name); err != nil {
			return invalid("%s", err.Error())
		}
	}
	return nil
}

// validateRange is ThriftValidation.validateRange.
func validateRange(cf *schema.ColumnFamily, superColumn []byte, r *cassandra.SliceRange) error {
	if superColumn != nil && !cf.Super {
		// 0.6 looked up a subcomparator that a standard CF does not have
		// and crashed; only a Deletion can get here (spec 16.3).
		return invalid("supercolumn specified to ColumnFamily %s containing normal columns", cf.Name)
	}
	cmp := nameComparator(cf, superColumn)
	if err := cmp.Validate(r.Start); err != nil {
		return invalid("%s", err.Error())
	}
	if err := cmp.Validate(r.Finish); err != nil {
		return invalid("%s", err.Error())
	}
	if r.Count < 0 {
		return invalid("get_slice requires non-negative count")
	}
	if len(r.Start) > 0 && len(r.Finish) > 0 {
		order := cmp.Compare(r.Start, r.Finish)
		if r.Reversed {
			order = -order
		}
		if order > 0 {
			return invalid("range finish must come after start in the order of traversal")
		}
	}
	return nil
}

// validatePredicate is ThriftValidation.validatePredicate (reads).
func validatePredicate(cf *schema.ColumnFamily, parent *cassandra.ColumnParent, p *cassandra.SlicePredicate) error {
	if p.ColumnNames == nil && p.SliceRange == nil {
		return invalid("predicate column_names and slice_range may not both be null")
	}
	if p.ColumnNames != nil && p.SliceRange != nil {
		return invalid("predicate column_names and slice_range may not both be present")
	}
	if p.SliceRange != nil {
		return validateRange(cf, parent.SuperColumn, p.SliceRange)
	}
	return validateColumns(cf, parent.SuperColumn, p.ColumnNames)
}

// validateSlicePredicate is ThriftValidation.validateSlicePredicate
// (deletions), which unlike validatePredicate accepts both fields at once.
func validateSlicePredicate(cf *schema.ColumnFamily, superColumn []byte, p *cassandra.SlicePredicate) error {
	if p.ColumnNames == nil && p.SliceRange == nil {
		return invalid("A SlicePredicate must be given a list of Columns, a SliceRange, or both")
	}
	if p.SliceRange != nil {
		if err := validateRange(cf, superColumn, p.SliceRange); err != nil {
			return err
		}
	}
	if p.ColumnNames != nil {
		return validateColumns(cf, superColumn, p.ColumnNames)
	}
	return nil
}

// validateKeyRange is ThriftValidation.validateKeyRange. Its keys must have
// gone through javaString. It needs the partitioner only to compare key
// tokens; token strings are parsed later, when the range is resolved.
func (v validator) validateKeyRange(r *cassandra.KeyRange) error {
	if (r.StartKey == nil) != (r.EndKey == nil) {
		return invalid("start key and end key must either both be non-null, or both be null")
	}
	if (r.StartToken == nil) != (r.EndToken == nil) {
		return invalid("start token and end token must either both be non-null, or both be null")
	}
	if (r.StartKey == nil) == (r.StartToken == nil) {
		return invalid("exactly one of {start key, end key} or {start token, end token} must be specified")
	}
	if r.StartKey != nil {
		p := v.sch().Partitioner
		start, end := p.Token(*r.StartKey), p.Token(*r.EndKey)
		if bytes.Compare(start, end) > 0 && len(end) != 0 {
			if p.Name() == randomPartitioner {
				return invalid("start key's md5 sorts after end key's md5.  this is not allowed; you probably should not specify end key at all, under RandomPartitioner")
			}
			return invalid("start key must sort before (or equal to) finish key in your partitioner!")
		}
	}
	if r.Count <= 0 {
		return invalid("maxRows must be positive")
	}
	return nil
}

const randomPartitioner = "org.apache.cassandra.dht.RandomPartitioner"

// validateColumnOrSuperColumn is ThriftValidation.validateColumnOrSuperColumn
// (batch_insert, batch_mutate). Both fields set passes here; each caller
// decides what that means.
func (v validator) validateColumnOrSuperColumn(keyspace, cfName string, c *cassandra.ColumnOrSuperColumn) error {
	if c.Column != nil {
		path := &cassandra.ColumnPath{ColumnFamily: cfName, Column: c.Column.Name}
		if _, err := v.validateColumnPath(keyspace, path); err != nil {
			return err
		}
	}
	if c.SuperColumn != nil {
		for _, col := range c.SuperColumn.Columns {
			path := &cassandra.ColumnPath{ColumnFamily: cfName, SuperColumn: c.SuperColumn.Name, Column: col.Name}
			if _, err := v.validateColumnPath(keyspace, path); err != nil {
				return err
			}
		}
	}
	if c.Column == nil && c.SuperColumn == nil {
		return invalid("ColumnOrSuperColumn must have one or both of Column or SuperColumn")
	}
	return nil
}

// validateMutation is ThriftValidation.validateMutation.
func (v validator) validateMutation(keyspace, cfName string, m *cassandra.Mutation) error {
	switch {
	case m.ColumnOrSupercolumn != nil && m.Deletion != nil:
		return invalid("Mutation may have either a ColumnOrSuperColumn or a Deletion, but not both")
	case m.ColumnOrSupercolumn != nil:
		return v.validateColumnOrSuperColumn(keyspace, cfName, m.ColumnOrSupercolumn)
	case m.Deletion != nil:
		return v.validateDeletion(keyspace, cfName, m.Deletion)
	}
	return invalid("Mutation must have one ColumnOrSuperColumn or one Deletion")
}

// validateDeletion is ThriftValidation.validateDeletion with two checks
// 0.6 lacked. 0.6 did not look the keyspace and column family up and
// crashed on unknown ones (spec 16.3); thriftd answers with the usual
// messages first. 0.6 also never validated a super column name given
// without column names, so a tombstone could be written under a name the
// comparator rejects; thriftd checks it as validateColumnPath does.
func (v validator) validateDeletion(keyspace, cfName string, d *cassandra.Deletion) error {
	cf, err := v.columnFamily(keyspace, cfName)
	if err != nil {
		return err
	}
	if d.Predicate != nil {
		if err := validateSlicePredicate(cf, d.SuperColumn, d.Predicate); err != nil {
			return err
		}
		if d.Predicate.SliceRange != nil {
			return invalid("Deletion does not yet support SliceRange predicates.")
		}
	}
	if !cf.Super && d.SuperColumn != nil {
		return invalid("deletion of super_column is not possible on a standard ColumnFamily (KeySpace=%s ColumnFamily=%s Deletion=%s)",
			keyspace, cfName, deletionString(d))
	}
	if d.SuperColumn != nil {
		return validateColumns(cf, nil, [][]byte{d.SuperColumn})
	}
	return nil
}

// deletionString renders a Deletion as 0.6's generated Java toString did,
// for the one message that quotes it. Only timestamp and super_column can be
// set when that message is reached.
func deletionString(d *cassandra.Deletion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Deletion(timestamp:%d", d.Timestamp)
	if d.SuperColumn != nil {
		b.WriteString(", super_column:")
		b.WriteString(javaBinaryString(d.SuperColumn))
	}
	if d.Predicate != nil {
		b.WriteString(", predicate:SlicePredicate(...)")
	}
	b.WriteString(")")
	return b.String()
}

// javaBinaryString is libthrift's toString of a binary field: upper-case
// hex bytes separated by spaces, cut after 128 bytes.
func javaBinaryString(p []byte) string {
	var b strings.Builder
	for i, c := range p {
		if i == 128 {
			b.WriteString(" ...")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%02X", c)
	}
	return b.String()
}
