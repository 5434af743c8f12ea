package handler

import "github.com/thriftd/thriftd/gen-go/cassandra"

// thriftd holds every replica of every key, so no consistency level can
// ever be unavailable (spec 16.4): what remains of 0.6's rules is which
// levels a kind of call accepts at all.

// knownConsistencyLevel reports whether cl is one of the IDL's values.
func knownConsistencyLevel(cl cassandra.ConsistencyLevel) bool {
	return cl >= cassandra.ConsistencyLevel_ZERO && cl <= cassandra.ConsistencyLevel_ANY
}

// rejectUnknownConsistencyLevel refuses a consistency_level that is not in
// the IDL's enum. Go's generated code passes such a value through as a
// plain number, where 0.6's decoder turned it into null: every call but
// remove then failed decoding with TApplicationException PROTOCOL_ERROR
// "Required field 'consistency_level' was not present!", and remove failed
// later with INTERNAL_ERROR.
//
// thriftd answers InvalidRequestException everywhere. Calls whose argument
// is required check it first, where 0.6's decoder did; remove checks it
// after its validation, where 0.6 failed. Answering PROTOCOL_ERROR instead
// for the required ones would have to happen in the server, before the
// handler is called.
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
