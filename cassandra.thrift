// The Cassandra 0.6 client interface (API version 2.2.0), as served by thriftd.
//
// Every field id, type, requiredness and default below is part of the wire
// contract: clients generated from Cassandra 0.6.4 - 0.6.13 must talk to
// thriftd unchanged. Do not renumber, retype or reorder anything here.
//
// Regenerate every binding after an edit with `make generate`.

namespace java org.apache.cassandra.thrift
namespace cpp org.apache.cassandra
namespace csharp Apache.Cassandra
namespace py cassandra
namespace php cassandra
namespace perl Cassandra
namespace rb CassandraThrift
namespace go cassandra

const string VERSION = "2.2.0"

//
// Data structures
//

// One named value. The timestamp is chosen by the client (by convention
// microseconds since the epoch) and decides which of two writes of the same
// column wins.
struct Column {
   1: required binary name,
   2: required binary value,
   3: required i64 timestamp,
}

// A named group of columns inside a row of a Super column family.
struct SuperColumn {
   1: required binary name,
   2: required list<Column> columns,
}

// Exactly one of the two fields is set in a result: `column` for a Standard
// column family or a sub-column, `super_column` for a whole super column.
struct ColumnOrSuperColumn {
    1: optional Column column,
    2: optional SuperColumn super_column,
}


//
// Exceptions
//

// A get() found nothing live at the requested path.
exception NotFoundException {
}

// The request was malformed; `why` says how.
exception InvalidRequestException {
    1: required string why
}

// Not enough replicas were alive to honour the consistency level.
exception UnavailableException {
}

// The replicas did not answer within RpcTimeoutInMillis.
exception TimedOutException {
}

// login() was refused: bad credentials.
exception AuthenticationException {
    1: required string why
}

// login() was refused: the user may not use the keyspace.
exception AuthorizationException {
    1: required string why
}


//
// Service parameters
//

// How many replicas must answer before a call returns. ZERO writes return
// at once; ANY writes accept hinted handoff; reads reject both.
enum ConsistencyLevel {
    ZERO = 0,
    ONE = 1,
    QUORUM = 2,
    DCQUORUM = 3,
    DCQUORUMSYNC = 4,
    ALL = 5,
    ANY = 6,
}

// The column family (and optionally the super column) whose columns a
// slice or count reads. Field ids start at 3 for historical reasons.
struct ColumnParent {
    3: required string column_family,
    4: optional binary super_column,
}

// The address of a column, a super column, or a whole row of one column
// family. Field ids start at 3 for historical reasons.
struct ColumnPath {
    3: required string column_family,
    4: optional binary super_column,
    5: optional binary column,
}

// A contiguous run of names. `start` and `finish` are inclusive and may be
// empty, meaning "from the first" and "to the last". With `reversed` the
// run is walked from `start` downwards. At most `count` items are returned.
struct SliceRange {
    1: required binary start,
    2: required binary finish,
    3: required bool reversed=0,
    4: required i32 count=100,
}

// Selects columns either by an explicit list of names or by a SliceRange.
// Set exactly one of the two.
struct SlicePredicate {
    1: optional list<binary> column_names,
    2: optional SliceRange   slice_range,
}

// A range of rows, given either by keys or by tokens, not both.
// Keys are start-inclusive; tokens are start-exclusive. Token ranges may
// wrap around the ring (end < start); keyX..keyX is one row, and
// tokenY..tokenY is the whole ring.
struct KeyRange {
    1: optional string start_key,
    2: optional string end_key,
    3: optional string start_token,
    4: optional string end_token,
    5: required i32 count=100
}

// One row of a range read: its key and the columns the predicate selected.
struct KeySlice {
    1: required string key,
    2: required list<ColumnOrSuperColumn> columns,
}

// Deletes a whole row of a column family, a super column, or the named
// columns, for every version written at or before `timestamp`.
struct Deletion {
    1: required i64 timestamp,
    2: optional binary super_column,
    3: optional SlicePredicate predicate,
}

// One change inside batch_mutate: an insert or a deletion, never both.
struct Mutation {
    1: optional ColumnOrSuperColumn column_or_supercolumn,
    2: optional Deletion deletion,
}

// The part of the ring between two node tokens and the nodes holding it.
struct TokenRange {
    1: required string start_token,
    2: required string end_token,
    3: required list<string> endpoints,
}

// Credentials for login(), e.g. {"username": ..., "password": ...}.
struct AuthenticationRequest {
    1: required map<string, string> credentials,
}


service Cassandra {
  // Authenticates this connection for the rest of its life.
  void login(1: required string keyspace, 2:required AuthenticationRequest auth_request)
       throws (1:AuthenticationException authnx, 2:AuthorizationException authzx),

  # retrieval methods

  // The column or super column at column_path; NotFoundException if
  // nothing live is there.
  ColumnOrSuperColumn get(1:required string keyspace,
                          2:required string key,
                          3:required ColumnPath column_path,
                          4:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                      throws (1:InvalidRequestException ire, 2:NotFoundException nfe, 3:UnavailableException ue, 4:TimedOutException te),

  // The columns (or super columns) of one row selected by predicate.
  list<ColumnOrSuperColumn> get_slice(1:required string keyspace,
                                      2:required string key,
                                      3:required ColumnParent column_parent,
                                      4:required SlicePredicate predicate,
                                      5:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                            throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // Deprecated: get() for many keys; keys with nothing map to an empty
  // ColumnOrSuperColumn.
  map<string,ColumnOrSuperColumn> multiget(1:required string keyspace,
                                           2:required list<string> keys,
                                           3:required ColumnPath column_path,
                                           4:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                                  throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // get_slice() for many keys; every key is in the result.
  map<string,list<ColumnOrSuperColumn>> multiget_slice(1:required string keyspace,
                                                       2:required list<string> keys,
                                                       3:required ColumnParent column_parent,
                                                       4:required SlicePredicate predicate,
                                                       5:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                                        throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // The number of live columns (or super columns) under column_parent.
  i32 get_count(1:required string keyspace,
                2:required string key,
                3:required ColumnParent column_parent,
                4:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
      throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // Deprecated: get_range_slices() with a key range.
  list<KeySlice> get_range_slice(1:required string keyspace,
                                 2:required ColumnParent column_parent,
                                 3:required SlicePredicate predicate,
                                 4:required string start_key="",
                                 5:required string finish_key="",
                                 6:required i32 row_count=100,
                                 7:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                 throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // The rows of a key or token range, in token order, each with the
  // columns predicate selects.
  list<KeySlice> get_range_slices(1:required string keyspace,
                                  2:required ColumnParent column_parent,
                                  3:required SlicePredicate predicate,
                                  4:required KeyRange range,
                                  5:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
                 throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  # modification methods

  // Writes one column.
  void insert(1:required string keyspace,
              2:required string key,
              3:required ColumnPath column_path,
              4:required binary value,
              5:required i64 timestamp,
              6:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
       throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // Deprecated: writes columns of several column families of one row.
  void batch_insert(1:required string keyspace,
                    2:required string key,
                    3:required map<string, list<ColumnOrSuperColumn>> cfmap,
                    4:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
       throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // Deletes a row, super column or column, as column_path says.
  void remove(1:required string keyspace,
              2:required string key,
              3:required ColumnPath column_path,
              4:required i64 timestamp,
              5:ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
       throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),

  // Inserts and deletes in many rows: row key -> column family -> mutations.
  void batch_mutate(1:required string keyspace,
                    2:required map<string, map<string, list<Mutation>>> mutation_map,
                    3:required ConsistencyLevel consistency_level=ConsistencyLevel.ONE)
       throws (1:InvalidRequestException ire, 2:UnavailableException ue, 3:TimedOutException te),


  // Deprecated: "cluster name", "config file", "token map" or "version".
  string get_string_property(1:required string property),

  // Deprecated: "keyspaces".
  list<string> get_string_list_property(1:required string property),

  // The names of every keyspace, "system" included.
  set<string> describe_keyspaces(),

  string describe_cluster_name(),

  // The API version, VERSION above.
  string describe_version(),

  // The token ranges of the ring and the nodes holding each.
  list<TokenRange> describe_ring(1:required string keyspace)
                   throws (1:InvalidRequestException ire),

  // The fully qualified class name of the partitioner.
  string describe_partitioner(),

  // Column family name -> its Type, Desc, CompareWith (and
  // CompareSubcolumnsWith for Super column families).
  map<string, map<string, string>> describe_keyspace(1:required string keyspace)
                                   throws (1:NotFoundException nfe),

  // Experimental: tokens splitting start_token..end_token into pieces of
  // about keys_per_split keys each.
  list<string> describe_splits(1:required string start_token,
                               2:required string end_token,
                               3:required i32 keys_per_split),
}
