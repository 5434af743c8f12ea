package handler

import "github.com/thriftd/thriftd/gen-go/cassandra"

// On the LevelDB store thriftd holds every replica of every key, so no
// consistency level can ever be unavailable (spec 16.4); a store on a
// Cassandra cluster maps the level it receives through the context
// (withConsistency in methods.go). Here are 0.6's rules on which levels a
// kind of call accepts at all.

// knownConsistencyLevel reports whether cl is one of the IDL's values.
func knownConsistencyLevel(cl cassandra.ConsistencyLevel) bool {
	return cl >= cassandra.ConsistencyLevel_ZERO && cl <= cassandra.ConsistencyLevel_ANY
}

// rejectUnknownConsistencyLevel refuses a consistency_level that is not in
// the IDL's enum. Over the wire, argsReader already answers such a value
// with 0.6's PROTOCOL_ERROR for every call whose argument is required, so
// this check speaks for remove (0.6 failed inside it; thriftd answers IRE,
// after validation, where 0.6 failed) and for callers of Connection.
func rejectUnknownConsistencyLevel(cl cassandra.ConsistencyLevel) error {
	if !knownConsistencyLevel(cl) {
		return invalid("Unknown consistency level %d", int64(cl))
	}
	return nil
}

// checkReadConsistency applies 0.6's rules for single-row reads (get,
// get_slice, multiget, multiget_slice, get_count), which run after the
// request's path, predicate and keys are validated.
func checkReadConsistency(cl cassandra.ConsistencyLevel) error {
	switch cl {
	case cassandra.ConsistencyLevel_ZERO:
		return invalid("Consistency level zero may not be applied to read operations")
	case cassandra.ConsistencyLevel_ANY:
		return invalid("Consistency level any may not be applied to read operations")
	}
	return nil
}

// checkRangeConsistency applies the rules for range reads. 0.6 failed ZERO
// with an internal error (spec 16.3 makes it the single-row message) and
// served ANY like ONE.
func checkRangeConsistency(cl cassandra.ConsistencyLevel) error {
	if cl == cassandra.ConsistencyLevel_ZERO {
		return invalid("Consistency level zero may not be applied to read operations")
	}
	return nil
}
