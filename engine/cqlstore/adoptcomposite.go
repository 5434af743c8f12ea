package cqlstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// The composite shape of an adopted table: a 1.2 column family whose
// comparator was CompositeType(C1,...,CN) has, after DROP COMPACT STORAGE,
// the clustering columns column1 ... columnN. A Thrift name is the
// CompositeType encoding of one value per clustering column (each a
// 2-byte length, the value and an end-of-component byte); it is written
// as the row (key, column1..N, value). The cluster keeps the rows in the
// CompositeType order (a DESC column is a ReversedType component), so a
// read walks the partition in that order (or its reverse) and keeps the
// names the predicate selects, compared by the comparator: the bounds of
// a slice may be composites of fewer components with any end-of-component
// byte, as 1.2 allowed. A deletion of a name of fewer components deletes
// every row of that prefix.

// withComposite makes f serve the composite shape over clustering.
func withComposite(f *family, clustering []string, desc []bool) {
	plain := *f
	a := &adoptedLayout{statics: map[string]string{}, plain: &plain}
	for i, c := range clustering {
		a.clustering = append(a.clustering, quote(c))
		if desc[i] {
			a.reverseOrder = append(a.reverseOrder, "ASC")
		} else {
			a.reverseOrder = append(a.reverseOrder, "DESC")
		}
	}
	f.adopt = a
}

// splitComposite returns the components of a CompositeType name.
func splitComposite(name []byte) ([][]byte, error) {
	var out [][]byte
	for len(name) > 0 {
		if len(name) < 3 {
			return nil, fmt.Errorf("a composite name ends inside a component")
		}
		n := int(binary.BigEndian.Uint16(name))
		if len(name) < 2+n+1 {
			return nil, fmt.Errorf("a composite component of %d bytes overruns the name", n)
		}
		out = append(out, name[2:2+n])
		name = name[2+n+1:]
	}
	return out, nil
}

// joinComposite is the CompositeType name of full components.
func joinComposite(comps []raw) []byte {
	var out []byte
	for _, c := range comps {
		out = binary.BigEndian.AppendUint16(out, uint16(len(c)))
		out = append(out, c...)
		out = append(out, 0)
	}
	return out
}

// readComposite is readColumns of a family of the composite shape.
func (st *Store) readComposite(ctx context.Context, f *family, key string, q engine.Query) ([]engine.Column, error) {
	a := f.adopt
	c := f.def.Comparator
	cols := strings.Join(a.clustering, ", ")
	// A counter (counter.go) has no write time or TTL.
	counter := counterFamily(f.def)
	sel := `, value, writetime(value), ttl(value)`
	if counter {
		sel = `, value`
	}
	stmt := `SELECT ` + cols + sel + ` FROM ` + f.table + ` WHERE key = ?`
	if q.Names == nil && q.Reversed {
		// The reverse of the clustering order, column by column.
		dirs := make([]string, len(a.clustering))
		for i, col := range a.clustering {
			dirs[i] = col + " " + a.reverseOrder[i]
		}
		stmt += ` ORDER BY ` + strings.Join(dirs, ", ")
	}
	iter := st.readQuery(ctx, stmt, st.keyOf(f, key)).PageSize(pageSize).Iter()
	comps := make([]raw, len(a.clustering))
	var value raw
	var ts int64
	var ttl *int32
	dest := make([]any, 0, len(comps)+3)
	for i := range comps {
		dest = append(dest, &comps[i])
	}
	dest = append(dest, &value)
	if !counter {
		dest = append(dest, &ts, &ttl)
	}
	now := time.Now().Unix()
	limit := q.Count
	if q.Names != nil || limit < 0 {
		limit = math.MaxInt
	}
	var out []engine.Column
	for len(out) < limit && iter.Scan(dest...) {
		name := joinComposite(comps)
		keep := true
		switch {
		case q.Names != nil:
			keep = false
			for _, n := range q.Names {
				if c.Compare(n, name) == 0 {
					keep = true
					break
				}
			}
		case !q.Reversed:
			if len(q.Start) > 0 && c.Compare(name, q.Start) < 0 {
				keep = false
			} else if len(q.Finish) > 0 && c.Compare(name, q.Finish) > 0 {
				limit = len(out) // past the run
				keep = false
			}
		default:
			if len(q.Start) > 0 && c.Compare(name, q.Start) > 0 {
				keep = false
			} else if len(q.Finish) > 0 && c.Compare(name, q.Finish) < 0 {
				limit = len(out)
				keep = false
			}
		}
		if keep {
			out = append(out, expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now))
		}
		for i := range comps {
			comps[i] = nil
		}
		value, ttl = nil, nil
	}
	return out, clusterError(ctx, "read "+f.table, iter.Close())
}

// compositeComponents are the values of the clustering columns a name
// of a family of the composite shape binds: one per component, or for a
// deletion those of a prefix. A name that is no such composite is bound
// as it is, so that the cluster refuses it with its own message.
func compositeComponents(f *family, name []byte, deletion bool) [][]byte {
	comps, err := splitComposite(name)
	if n := len(f.adopt.clustering); err != nil || len(comps) > n || (!deletion && len(comps) < n) {
		return [][]byte{name}
	}
	return comps
}

// compositeStatement is the statement of a mutation of a family of the
// composite shape. A write needs one value per clustering column (the
// cluster refuses a missing one); a deletion may name a prefix.
func (f *family) compositeStatement(key raw, m engine.Mutation) (statement, bool) {
	a := f.adopt
	if a == nil || len(a.clustering) == 0 || m.SuperColumn != nil || m.Name == nil {
		return statement{}, false
	}
	comps := compositeComponents(f, m.Name, m.Delete)
	if m.Delete {
		var where strings.Builder
		args := []any{m.Timestamp, key}
		for i, comp := range comps {
			where.WriteString(` AND ` + a.clustering[i] + ` = ?`)
			args = append(args, raw(comp))
		}
		return statement{`DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE key = ?` + where.String(), args}, true
	}
	names := "key"
	marks := "?"
	args := []any{key}
	for i := range a.clustering {
		names += ", " + a.clustering[i]
		marks += ", ?"
		var v raw
		if i < len(comps) {
			v = raw(comps[i])
		}
		args = append(args, v)
	}
	stmt := `INSERT INTO ` + f.table + ` (` + names + `, value) VALUES (` + marks + `, ?) USING TIMESTAMP ?`
	args = append(args, raw(nonNil(m.Value)), m.Timestamp)
	if m.TTL > 0 {
		stmt += ` AND TTL ?`
		args = append(args, min(int(m.TTL), maxTTL))
	}
	return statement{stmt, args}, true
}
