package cqlstore

// Secondary indexes
//
// KEYS secondary indexes implement engine.Indexer (index.go; for users,
// docs/cassandra.md, "Secondary indexes").
//
// Each keyspace with an indexed family has a table of thriftd's
// own beside its families' tables:
//
//	CREATE TABLE "ks".thriftd_index (family text, column blob, value blob,
//	    row_token blob, key blob, written bigint,
//	    PRIMARY KEY ((family, column, value), row_token, key))
//
// An entry says that row key held value in the column at some time: a
// write of an indexed column first writes its entry, at the cell's own
// timestamp and, for an expiring cell, with its TTL and a second more, and
// only then the cell; nothing else adds entries, so an entry is never
// missing for a live value, whichever thriftd wrote it. row_token is the key's
// 0.6 token, so a value's entries are in ring order; written is the time
// of the entry's write on thriftd's clock.
//
// Overwrites, deletions and truncation leave the old entry behind:
// IndexedKeys reads the cell of every entry it meets and answers only the
// rows that hold the value. IndexedRows (engine.IndexReader, which the
// 19.x handler's indexed queries use) judges the entries by the filter's
// columns of their rows, which it reads anyway, then reads what the query
// selects of the rows that hold the value: two reads of a page's rows
// where IndexedKeys and the handler's reads after it take three. An entry whose cell holds another value
// written after the entry's timestamp is deleted, at the entry's
// timestamp: no write of the value at or before that timestamp can win
// over the cell any more, and one after it keeps its entry. An entry
// whose cell is gone is left (a write in flight, or one to come with an
// older timestamp, may still need it); an expiring one expires by itself.
//
// Cassandra's own secondary indexes are not used: a query through a
// legacy index deletes an index entry whose row it does not find, and a
// write inserts its index entries before its row is visible, so a query
// racing a write can delete the entry of the value being written and lose
// the row from every later answer. Storage-attached indexes are refused on
// every partitioner but Murmur3, and on blob values. Indexes an earlier
// thriftd created (named "<cf>_thriftd_keys") are dropped.
//
// The marker that an index covers every row is a row of the partition
// ("", 0x, 0x), with the family's name as row_token and the column as key.
// A family created with its index is covered from the start. An index
// declared on a family that already holds rows is built by the thriftd
// that declared it (or by any that starts while it is not built): a walk
// over the family writes an entry for each cell of the column, then the
// marker; until then IndexedKeys answers not ready and queries scan. A
// second walk follows indexBuildDelay later, for the writes of other
// thriftd processes that did not serve the new schema yet when the first
// walk passed their rows. The author of a change that undeclares an index, or drops
// its family, deletes its marker, so that an index declared again is
// built again.
