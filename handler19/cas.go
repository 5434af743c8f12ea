package handler19

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// cas is CassandraServer.cas of 2.1.21 (the call is 2.0's): its checks in
// its order, then StorageProxy.cas's checks of the consistency levels,
// then the store's compare-and-set.
func (c *conn) cas(ctx context.Context, key []byte, cf string, expected, updates []*cassandra19.Column, serial, commit cassandra19.ConsistencyLevel) (*cassandra19.CASResult_, error) {
	// ClientState.getKeyspace, with 2.1's message.
	ks := c.keyspace
	if ks == "" {
		return nil, invalid(msgNoKeyspace)
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, cf)
	if err != nil {
		return nil, err
	}
	// CAS updates can be used to simulate a get, so 2.1 asks for both.
	if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	if err := validateCommutative(f, false); err != nil {
		return nil, err
	}
	if err := validateKey(f, key); err != nil {
		return nil, err
	}
	if f.Super {
		return nil, invalid("CAS does not support supercolumns")
	}
	names := make([][]byte, len(updates))
	for i, u := range updates {
		names[i] = u.Name
	}
	if err := validateColumnNames(f, nil, names); err != nil {
		return nil, err
	}
	for _, u := range updates {
		if err := c.s.validateColumnData(f, u, false); err != nil {
			return nil, err
		}
	}
	// ConsistencyLevel.validateForCas, then validateForCasCommit.
	if serial != cassandra19.ConsistencyLevel_SERIAL && serial != cassandra19.ConsistencyLevel_LOCAL_SERIAL {
		return nil, invalid("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
	}
	switch commit {
	case cassandra19.ConsistencyLevel_EACH_QUORUM:
		if err := c.requireNetworkTopology(ks, commit); err != nil {
			return nil, err
		}
	case cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_LOCAL_SERIAL:
		return nil, invalid("%s is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"", commit)
	}
	store := c.s.cas
	if store == nil {
		return nil, invalid("this store does not serve cas")
	}
	if err := c.assureReplicas(ks, commit); err != nil {
		return nil, err
	}
	req := engine.CAS{ColumnFamily: f.Name, Expected: casExpected(expected), LocalSerial: serial == cassandra19.ConsistencyLevel_LOCAL_SERIAL}
	for _, u := range updates {
		req.Updates = append(req.Updates, engine.Mutation{ColumnFamily: f.Name, Name: u.Name, Value: u.Value, Timestamp: *u.Timestamp})
	}
	start := time.Now()
	applied, current, err := store.CompareAndSet(ctx, ks, string(key), req)
	if err != nil {
		return nil, err
	}
	if applied {
		f.wrote(1, time.Since(start))
		return &cassandra19.CASResult_{Success: true}, nil
	}
	// A condition that failed only read the row.
	f.read(1, start)
	// 2.1 sets current_values, empty or not, whenever the condition fails.
	out := make([]*cassandra19.Column, len(current))
	for i, col := range current {
		out[i] = thriftColumn(col)
	}
	return &cassandra19.CASResult_{Success: false, CurrentValues: out}, nil
}

// casExpected is the expected columns as 2.1 adds them into one column
// family: a repeated name keeps the column of the higher timestamp, of
// the greater value on a tie. A column without a value never matches.
func casExpected(expected []*cassandra19.Column) []engine.Column {
	var out []engine.Column
	index := map[string]int{}
	for _, e := range expected {
		if e == nil {
			continue
		}
		col := engine.Column{Name: e.Name, Value: e.Value, Timestamp: e.GetTimestamp()}
		i, seen := index[string(e.Name)]
		if !seen {
			index[string(e.Name)] = len(out)
			out = append(out, col)
			continue
		}
		old := out[i]
		if col.Timestamp > old.Timestamp || (col.Timestamp == old.Timestamp && bytes.Compare(col.Value, old.Value) > 0) {
			out[i] = col
		}
	}
	return out
}

// requireNetworkTopology is ConsistencyLevel.requireNetworkTopologyStrategy.
func (c *conn) requireNetworkTopology(keyspace string, cl cassandra19.ConsistencyLevel) error {
	class := simpleStrategy
	if ks := c.s.schema().Keyspace(keyspace); ks != nil && ks.Options.StrategyClass != "" {
		class = ks.Options.StrategyClass
	}
	if !strings.Contains(class, ".") {
		class = "org.apache.cassandra.locator." + class
	}
	if class == networkTopology {
		return nil
	}
	return invalid("consistency level %s not compatible with replication strategy (%s)", cl, class)
}

// validateForWrite is ConsistencyLevel.validateForWrite of 2.1: a write
// at a serial level is refused.
func validateForWrite(cl cassandra19.ConsistencyLevel) error {
	if cl == cassandra19.ConsistencyLevel_SERIAL || cl == cassandra19.ConsistencyLevel_LOCAL_SERIAL {
		return invalid("You must use conditional updates for serializable writes")
	}
	return nil
}

// serialOneRow is StorageProxy.readWithPaxos's refusal of a serial read
// of several rows (a key given twice counts twice, as 2.1 made a read
// command per key).
func serialOneRow(cl cassandra19.ConsistencyLevel, keys int) error {
	if keys > 1 && (cl == cassandra19.ConsistencyLevel_SERIAL || cl == cassandra19.ConsistencyLevel_LOCAL_SERIAL) {
		return invalid("SERIAL/LOCAL_SERIAL consistency may only be requested for one row at a time")
	}
	return nil
}

// casStore is the store's compare-and-set, nil when it has none.
func casStore(s engine.Store) engine.CASStore {
	cs, _ := s.(engine.CASStore)
	return cs
}
