// Package engine defines the seam between the Thrift handler and storage.
//
// The handler validates every request against the schema first and only
// then calls a Store, so a Store may assume its arguments are valid: known
// keyspace and column family, names that pass their comparator, a super
// column given only for a Super column family. A Store implements 0.6's
// storage semantics: last-write-wins by timestamp with 0.6's tie-breaks,
// column, super column and row tombstones that shadow older writes, and
// rows ordered by partitioner token.
//
// The local implementation is engine/ldbstore (LevelDB). A backend that
// stores into a Cassandra or ScyllaDB cluster implements the same Store.
package engine

import (
	"bytes"
	"context"
	"errors"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/schema"
)

// Column is a live column as read back from a Store.
type Column struct {
	Name      []byte
	Value     []byte
	Timestamp int64
	// TTL is the time to live the column was written with, in seconds,
	// and ExpiresAt the Unix second at which it stops being live; both are
	// 0 for a column that never expires. A Store that cannot recall the
	// TTL written reports the seconds left at the time of the read, and
	// says so in its documentation.
	TTL       int32
	ExpiresAt int64
}

// SuperColumn is a live super column: one that has at least one live
// subcolumn. Columns holds all its live subcolumns in ascending comparator
// order, but for one documented exception: the Cassandra store's adopted
// super column families answer a reversed read with each super column's
// subcolumns in descending order, as Cassandra 2.0 to 3.11 did
// (engine/cqlstore/adoptsuper.go).
type SuperColumn struct {
	Name    []byte
	Columns []Column
}

// Predicate selects names within one row, at the level a Query addresses.
type Predicate struct {
	// Names, when non-nil, selects exactly these names. They may be in any
	// order and repeat; the result is in ascending comparator order with
	// each name at most once, and names with nothing live are left out.
	// The other fields are ignored.
	Names [][]byte

	// Start and Finish bound a run of names, both inclusive. An empty Start
	// means the first name (the last when Reversed); an empty Finish means
	// no bound. With Reversed the run is walked in descending order from
	// Start down to Finish; the caller guarantees Start >= Finish then, and
	// Start <= Finish otherwise, when both are non-empty.
	Start, Finish []byte
	Reversed      bool

	// Count is the most live items returned; shadowed and deleted items do
	// not count. Zero returns nothing.
	Count int
}

// Query addresses one level of a row of one column family.
type Query struct {
	ColumnFamily string
	// SuperColumn, when non-nil (Super column families only), makes the
	// Predicate select subcolumns of that super column. When nil, the
	// Predicate selects columns of a Standard column family, or whole super
	// columns of a Super column family.
	SuperColumn []byte
	Predicate
}

// Row is the result of a Query on one row. Exactly one of Columns and
// SuperColumns is used: SuperColumns for a Super column family queried at
// the top level, Columns otherwise. A missing row gives an empty Row.
// With Reversed, the list is in descending order; subcolumns inside a
// SuperColumn are always ascending.
type Row struct {
	Key          string
	Columns      []Column
	SuperColumns []SuperColumn
}

// TokenRange is a non-wrapping range of tokens.
type TokenRange struct {
	// Start is the lowest token; the empty (minimum) token means the
	// beginning of the ring.
	Start dht.Token
	// StartInclusive includes rows whose token equals Start.
	StartInclusive bool
	// End is the highest token, inclusive. The empty token means the end
	// of the ring: no upper bound.
	End dht.Token
}

// RingRange splits the ring range (left, right] into non-wrapping TokenRanges,
// in ring order: the start is exclusive and the end inclusive, as the
// Thrift APIs' token ranges are. An empty right is the end of the ring; a
// range whose right is not after its left wraps through the minimum token,
// and left == right is the whole ring, beginning just after left.
func RingRange(left, right dht.Token) []TokenRange {
	if len(right) == 0 || bytes.Compare(left, right) < 0 {
		return []TokenRange{{Start: left, End: right}}
	}
	return []TokenRange{
		{Start: left},
		{Start: dht.Token{}, StartInclusive: true, End: right},
	}
}

// Mutation is one write or deletion inside a row of one column family.
//
//	Delete  SuperColumn  Name   effect
//	false   nil          set    write column Name (Standard CF)
//	false   set          set    write subcolumn Name of SuperColumn
//	true    nil          nil    delete the row of ColumnFamily
//	true    set          nil    delete SuperColumn
//	true    nil          set    delete column Name (Standard CF)
//	true    set          set    delete subcolumn Name of SuperColumn
//
// and with Range set (Delete true, Name nil), the names in Range: columns
// (Standard CF), super columns (SuperColumn nil) or subcolumns of
// SuperColumn.
//
// A deletion shadows every version with a timestamp at or before
// Timestamp; a later write with a greater timestamp resurrects.
//
// A write with a TTL (the 19.x API's expiring columns) is live until the
// Store's clock reaches the second it was applied plus TTL; from then on it
// is not returned by any read and acts as a deletion at its Timestamp,
// kept until GCGraceSeconds after it expired, as Cassandra's expiring
// columns are.
type Mutation struct {
	ColumnFamily string
	SuperColumn  []byte
	Name         []byte
	Value        []byte
	Timestamp    int64
	Delete       bool
	// TTL is the write's time to live in seconds; 0 means it never
	// expires. Ignored on a deletion.
	TTL int32
	// Range, on a deletion that names no column (Name nil), makes it
	// delete a run of names rather than the row or the super column: the
	// columns of a Standard column family, the super columns of a Super
	// one (SuperColumn nil), or the subcolumns of SuperColumn, whose names
	// lie in Range (the 19.x API's range tombstones, Cassandra 2.0's).
	Range *NameRange
}

// NameRange is an inclusive run of names in comparator order. An empty
// Start is the first name, an empty Finish the last; when both are set,
// Start sorts at or before Finish.
type NameRange struct {
	Start, Finish []byte
}

// IsRowDeletion reports whether m deletes its whole row of its column
// family.
func (m *Mutation) IsRowDeletion() bool {
	return m.Delete && m.SuperColumn == nil && m.Name == nil && m.Range == nil
}

// RowMutation is every Mutation for one row key, across column families.
// Within it, the usual reconciliation applies, so order does not matter,
// except that of several row deletions of one column family only the last
// one counts (0.6 set rather than merged the row tombstone).
type RowMutation struct {
	Key       string
	Mutations []Mutation
}

// Store is the storage seam. Every method is safe for concurrent use.
type Store interface {
	// Apply makes every RowMutation durable as the sync mode promises,
	// before it returns. Each RowMutation is applied atomically: a reader
	// sees all of it or none of it.
	Apply(ctx context.Context, keyspace string, rows []RowMutation) error

	// Get reads one row.
	Get(ctx context.Context, keyspace, key string, q Query) (Row, error)

	// GetMany reads the same Query from several rows, all from one
	// consistent view of the store; rows[i] is the row of keys[i]. Keys
	// may repeat. It stops with ctx's error once ctx is done.
	GetMany(ctx context.Context, keyspace string, keys []string, q Query) ([]Row, error)

	// Count returns how many live items a Query with an unbounded range
	// would return: live columns, live subcolumns of superColumn, or super
	// columns with at least one live subcolumn.
	Count(ctx context.Context, keyspace, key, columnFamily string, superColumn []byte) (int, error)

	// Range reads up to maxRows rows of q.ColumnFamily whose tokens lie in
	// b, in token order. Every row that has anything stored in that column
	// family is returned, even when the predicate selects nothing live in
	// it (0.6's range ghosts), until its tombstones are purged. It stops
	// with ctx's error once ctx is done.
	Range(ctx context.Context, keyspace string, b TokenRange, q Query, maxRows int) ([]Row, error)

	// Splits returns tokens strictly inside b that cut the rows of
	// columnFamily of keyspace into runs of keysPerSplit rows, in ring
	// order: the token of the keysPerSplit-th row, the 2*keysPerSplit-th,
	// and so on. An empty keyspace counts the rows of every column family
	// of every keyspace (0.6's describe_splits, which names none); an
	// empty columnFamily, every family of keyspace.
	Splits(ctx context.Context, keyspace, columnFamily string, b TokenRange, keysPerSplit int) ([]dht.Token, error)

	// Close waits for calls in flight and releases the store.
	Close() error
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("engine: store is closed")

// ErrUnavailable is wrapped by a Store's error when the replicas a call's
// consistency level needs are not alive (0.6's UnavailableException).
var ErrUnavailable = errors.New("not enough replicas are alive for the consistency level")

// ErrTimedOut is wrapped by a Store's error when replicas did not answer
// in time (0.6's TimedOutException). Whether a timed-out write was applied
// is unknown, as in 0.6.
var ErrTimedOut = errors.New("replicas did not answer in time")

// RequestTimeLimiter is implemented by a Store that limits the time of
// each request it sends to replicas itself, as a Cassandra coordinator
// limits each of its waits (the Cassandra store: cassandra.timeout per request, and the
// nodes' own read, range and write request timeouts). The handlers give
// such a store's calls no deadline of their own (RpcTimeoutInMillis): a
// call that reads many rows is many requests, each within its bound, and
// may rightly take longer than one, as a range read of many pages did on
// Cassandra 2.1.
type RequestTimeLimiter interface {
	LimitsRequestTime() bool
}

// LimitsRequestTime reports whether st limits the time of each of its
// requests itself.
func LimitsRequestTime(st Store) bool {
	b, ok := st.(RequestTimeLimiter)
	return ok && b.LimitsRequestTime()
}

// Sources of a TimedOutError: which wait ran out.
const (
	// TimeoutNode is the cluster's own: the coordinator's read, range or
	// write request timeout (Cassandra's "Operation timed out").
	TimeoutNode = "node"
	// TimeoutDriver is the client driver's: no response on the connection
	// within its timeout, or a connection lost with the request on it.
	TimeoutDriver = "driver"
	// TimeoutRequest is the store's time limit of one request to the cluster
	// (the Cassandra store's cassandra.timeout).
	TimeoutRequest = "request"
	// TimeoutBusy is a request not sent in time: every connection busy or
	// reconnecting while a node still accepts connections.
	TimeoutBusy = "busy"
)

// TimedOutError is a Store's timeout that says which wait ran out
// (Source, one of Timeout*) and what the cluster said of it (Detail: the coordinator,
// the consistency level, the replicas that answered). It wraps
// ErrTimedOut.
type TimedOutError struct {
	Source string
	Detail string
}

func (e *TimedOutError) Error() string {
	return e.Source + " timeout: " + e.Detail + ": " + ErrTimedOut.Error()
}

func (e *TimedOutError) Unwrap() error { return ErrTimedOut }

// RefusedError is a Store's error for a write it cannot hold although the
// API accepts it (the Cassandra store's index refuses a family's values
// of 65,535 bytes or more). The refused row was not written; Why names
// the limit and is the client's InvalidRequestException.
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return e.Why }

// ConsistencyLevel is a call's 0.6 consistency level; the values are the
// IDL's.
type ConsistencyLevel int

// The 0.6 consistency levels.
const (
	Zero         ConsistencyLevel = 0
	One          ConsistencyLevel = 1
	Quorum       ConsistencyLevel = 2
	DCQuorum     ConsistencyLevel = 3
	DCQuorumSync ConsistencyLevel = 4
	All          ConsistencyLevel = 5
	Any          ConsistencyLevel = 6
)

type consistencyKey struct{}

// WithConsistency returns ctx carrying the call's consistency level, for
// a Store that replicates. A single-node Store ignores it.
func WithConsistency(ctx context.Context, level ConsistencyLevel) context.Context {
	return context.WithValue(ctx, consistencyKey{}, level)
}

// Consistency returns the level ctx carries, and One when it carries none.
func Consistency(ctx context.Context) ConsistencyLevel {
	if l, ok := ctx.Value(consistencyKey{}).(ConsistencyLevel); ok {
		return l
	}
	return One
}

// SchemaStore is implemented by a Store whose keyspaces and column families
// can be created, changed and dropped while it serves (the 19.x API's
// system_* calls). The schema catalog (package catalog) is its only
// caller, and makes one call at a time.
//
// The catalog owns the encoding of a schema: a SchemaStore keeps the bytes
// it is given and returns them unchanged.
type SchemaStore interface {
	// StoredSchema returns the encoded schema last recorded by
	// ChangeSchema, by this process or (on a shared store) by another, and
	// nil when none was ever recorded (a new data directory or cluster).
	StoredSchema(ctx context.Context) ([]byte, error)

	// ChangeSchema makes next the schema the store serves, and records
	// encoded (next's encoding) durably before it returns: column families
	// new in next exist, empty; those absent from next are gone with their
	// data (a later family of the same name starts empty); those in both
	// keep their data. On a store shared by several processes, it returns
	// once the change is visible to every node that serves it, or fails
	// with an error that says which have not caught up.
	ChangeSchema(ctx context.Context, next *schema.Schema, encoded []byte) error

	// SchemaVersions maps each schema version the store's nodes hold to the
	// nodes that hold it (describe_schema_versions); one entry means
	// agreement. nodes that cannot be reached are listed under
	// "UNREACHABLE".
	SchemaVersions(ctx context.Context) (map[string][]string, error)
}

// Truncater is implemented by a Store that can empty a column family at
// once (the 19.x API's truncate): every column written before the call is
// gone, and writes after it are kept.
type Truncater interface {
	Truncate(ctx context.Context, keyspace, columnFamily string) error
}
