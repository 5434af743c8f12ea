package handler

import (
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/schema"
)

// sliceQuery turns a validated predicate into the engine's Query for one
// level of a row: subcolumns of superColumn when it is non-nil, else
// columns or whole super columns.
func sliceQuery(cf *schema.ColumnFamily, superColumn []byte, p *cassandra.SlicePredicate) engine.Query {
	q := engine.Query{ColumnFamily: cf.Name, SuperColumn: superColumn}
	if p.ColumnNames != nil {
		// Non-nil even when empty: an empty name list selects nothing.
		q.Names = append(make([][]byte, 0, len(p.ColumnNames)), p.ColumnNames...)
		return q
	}
	r := p.SliceRange
	q.Start, q.Finish, q.Reversed, q.Count = r.Start, r.Finish, r.Reversed, int(r.Count)
	return q
}

// thriftifyRow converts a Row into the list get_slice returns: one
// ColumnOrSuperColumn per column, or per super column with at least one
// live subcolumn, in the Row's order. The list is never nil.
func thriftifyRow(row engine.Row) []*cassandra.ColumnOrSuperColumn {
	out := make([]*cassandra.ColumnOrSuperColumn, 0, len(row.Columns)+len(row.SuperColumns))
	// The columns' structs in two allocations rather than two per column.
	coscs := make([]cassandra.ColumnOrSuperColumn, len(row.Columns))
	cols := make([]cassandra.Column, len(row.Columns))
	for i, col := range row.Columns {
		cols[i] = cassandra.Column{Name: col.Name, Value: col.Value, Timestamp: col.Timestamp}
		coscs[i].Column = &cols[i]
		out = append(out, &coscs[i])
	}
	for _, sc := range row.SuperColumns {
		if len(sc.Columns) == 0 {
			continue
		}
		cols := make([]*cassandra.Column, len(sc.Columns))
		for i, col := range sc.Columns {
			cols[i] = thriftColumn(col)
		}
		out = append(out, &cassandra.ColumnOrSuperColumn{
			SuperColumn: &cassandra.SuperColumn{Name: sc.Name, Columns: cols},
		})
	}
	return out
}

func thriftColumn(c engine.Column) *cassandra.Column {
	return &cassandra.Column{Name: c.Name, Value: c.Value, Timestamp: c.Timestamp}
}

// appendWrites appends the writes of one ColumnOrSuperColumn, as 0.6's
// RowMutation did: a Column writes that column; otherwise every subcolumn of
// the SuperColumn is written into it, leaving its other subcolumns alone.
// When both are set the Column wins (batch_mutate's behaviour).
func appendWrites(dst []engine.Mutation, cf string, c *cassandra.ColumnOrSuperColumn) []engine.Mutation {
	if c.Column != nil {
		return append(dst, engine.Mutation{ColumnFamily: cf, Name: c.Column.Name, Value: c.Column.Value, Timestamp: c.Column.Timestamp})
	}
	for _, col := range c.SuperColumn.Columns {
		dst = append(dst, engine.Mutation{
			ColumnFamily: cf, SuperColumn: c.SuperColumn.Name,
			Name: col.Name, Value: col.Value, Timestamp: col.Timestamp,
		})
	}
	return dst
}

// appendDeletes appends the deletions of a validated Deletion (spec 5.11):
//
//	super_column  column_names  effect
//	unset         unset         delete the row of the column family
//	set           unset         delete that super column
//	unset         set           Standard: delete those columns;
//	                            Super: delete those super columns
//	set           set           delete those subcolumns of the super column
func appendDeletes(dst []engine.Mutation, cf *schema.ColumnFamily, d *cassandra.Deletion) []engine.Mutation {
	if d.Predicate == nil || d.Predicate.ColumnNames == nil {
		return append(dst, engine.Mutation{ColumnFamily: cf.Name, SuperColumn: d.SuperColumn, Timestamp: d.Timestamp, Delete: true})
	}
	for _, name := range d.Predicate.ColumnNames {
		m := engine.Mutation{ColumnFamily: cf.Name, Timestamp: d.Timestamp, Delete: true}
		if d.SuperColumn == nil && cf.Super {
			m.SuperColumn = name
		} else {
			m.SuperColumn, m.Name = d.SuperColumn, name
		}
		dst = append(dst, m)
	}
	return dst
}
