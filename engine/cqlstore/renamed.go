package cqlstore

// Adopted tables whose columns are not named key, column1 and value.
//
// DROP COMPACT STORAGE keeps a table's column names: a Thrift column
// family's are key, column1 (column2, ...) and value, but a compact table
// created with CQL (k text, ts bigint, v bigint, PRIMARY KEY (k, ts))
// keeps k, ts and v, and a table may have had columns renamed with CQL.
// The store's statements name the Thrift columns; for such a table each
// statement is rewritten before it is sent, every identifier key,
// column1 and value outside quotes becoming the table's own quoted
// column. The rows are read and written exactly as those of a table of
// the Thrift names, with the Thrift view 2.1 gave of such a table
// (comparator from the clustering types, validator from the value).

// renames maps key, column1 and value to t's own quoted columns where
// they differ, or is nil.
func (t AdoptedTable) renames() map[string]string {
	m := map[string]string{}
	if t.Key != "key" {
		m["key"] = quote(t.Key)
	}
	if len(t.Clustering) == 1 && t.Clustering[0] != "column1" {
		m["column1"] = quote(t.Clustering[0])
	}
	if t.Value != "value" && t.Value != "" {
		m["value"] = quote(t.Value)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// cqlOf is stmt as sent to the cluster: rewritten for an adopted table
// of other column names (renames), else as it is.
func (st *Store) cqlOf(stmt string) string {
	a := st.adopted.Load()
	if a == nil || len(a.renames) == 0 {
		return stmt
	}
	for table, m := range a.renames {
		if containsTable(stmt, table) {
			return renameColumns(stmt, m)
		}
	}
	return stmt
}

// containsTable reports whether stmt names table ("ks"."cf") as a whole.
func containsTable(stmt, table string) bool {
	for i := 0; i+len(table) <= len(stmt); i++ {
		if stmt[i:i+len(table)] == table {
			end := i + len(table)
			if end == len(stmt) || stmt[end] != '"' {
				return true
			}
		}
	}
	return false
}

// renameColumns replaces, outside quoted identifiers and string literals,
// each identifier that m names.
func renameColumns(stmt string, m map[string]string) string {
	out := make([]byte, 0, len(stmt)+16)
	isIdent := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; i < len(stmt); {
		c := stmt[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(stmt) {
				if stmt[j] == c {
					if j+1 < len(stmt) && stmt[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < len(stmt) {
				j++
			}
			out = append(out, stmt[i:j]...)
			i = j
		case isIdent(c):
			j := i
			for j < len(stmt) && isIdent(stmt[j]) {
				j++
			}
			word := stmt[i:j]
			if r, ok := m[word]; ok {
				out = append(out, r...)
			} else {
				out = append(out, word...)
			}
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return string(out)
}
