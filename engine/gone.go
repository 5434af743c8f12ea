package engine

// UnknownColumnFamilyError is wrapped by a Store's error when the table
// of a column family the schema being served still names no longer
// exists: a table of an adopted keyspace dropped with CQL, or a family
// dropped by another process sharing the store, until the schema is read
// again. The 19.x service answers it as the real server answered an
// unknown column family.
type UnknownColumnFamilyError struct {
	Name string
}

func (e *UnknownColumnFamilyError) Error() string { return "unconfigured columnfamily " + e.Name }
