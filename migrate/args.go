package migrate

import (
	"context"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The writes the durable log holds, by method: each is the generated Args
// struct of the call, so a replay is the very call the client made.
var logged = map[string]func() thrift.TStruct{
	"insert":              func() thrift.TStruct { return cassandra19.NewCassandraInsertArgs() },
	"add":                 func() thrift.TStruct { return cassandra19.NewCassandraAddArgs() },
	"remove":              func() thrift.TStruct { return cassandra19.NewCassandraRemoveArgs() },
	"remove_counter":      func() thrift.TStruct { return cassandra19.NewCassandraRemoveCounterArgs() },
	"batch_mutate":        func() thrift.TStruct { return cassandra19.NewCassandraBatchMutateArgs() },
	"atomic_batch_mutate": func() thrift.TStruct { return cassandra19.NewCassandraAtomicBatchMutateArgs() },
	"truncate":            func() thrift.TStruct { return cassandra19.NewCassandraTruncateArgs() },
}

// entryOf encodes a write for the durable log.
func entryOf(method, keyspace string, args thrift.TStruct) (Entry, error) {
	if _, ok := logged[method]; !ok {
		return Entry{}, fmt.Errorf("migration log: %s is not a logged write", method)
	}
	b, err := thrift.NewTSerializer().Write(context.Background(), args)
	if err != nil {
		return Entry{}, fmt.Errorf("migration log: encoding %s: %w", method, err)
	}
	return Entry{Method: method, Keyspace: keyspace, Args: b}, nil
}

// apply makes the logged call on target, in the entry's keyspace.
func apply(ctx context.Context, target cassandra19.Cassandra, e Entry) error {
	mk, ok := logged[e.Method]
	if !ok {
		return fmt.Errorf("unknown logged write %q", e.Method)
	}
	args := mk()
	if err := thrift.NewTDeserializer().Read(ctx, args, e.Args); err != nil {
		return fmt.Errorf("decoding a logged %s: %w", e.Method, err)
	}
	if e.Keyspace != "" {
		if err := target.SetKeyspace(ctx, e.Keyspace); err != nil {
			return describe(err)
		}
	}
	var err error
	switch a := args.(type) {
	case *cassandra19.CassandraInsertArgs:
		err = target.Insert(ctx, a.Key, a.ColumnParent, a.Column, a.ConsistencyLevel)
	case *cassandra19.CassandraAddArgs:
		err = target.Add(ctx, a.Key, a.ColumnParent, a.Column, a.ConsistencyLevel)
	case *cassandra19.CassandraRemoveArgs:
		err = target.Remove(ctx, a.Key, a.ColumnPath, a.Timestamp, a.ConsistencyLevel)
	case *cassandra19.CassandraRemoveCounterArgs:
		err = target.RemoveCounter(ctx, a.Key, a.Path, a.ConsistencyLevel)
	case *cassandra19.CassandraBatchMutateArgs:
		err = target.BatchMutate(ctx, a.MutationMap, a.ConsistencyLevel)
	case *cassandra19.CassandraAtomicBatchMutateArgs:
		err = target.AtomicBatchMutate(ctx, a.MutationMap, a.ConsistencyLevel)
	case *cassandra19.CassandraTruncateArgs:
		err = target.Truncate(ctx, a.Cfname)
	}
	return describe(err)
}

// describe makes a Thrift exception's text say what the server said.
func describe(err error) error {
	if err == nil {
		return nil
	}
	switch e := err.(type) {
	case *cassandra19.InvalidRequestException:
		return fmt.Errorf("InvalidRequestException: %s", e.Why)
	case *cassandra19.UnavailableException:
		return fmt.Errorf("UnavailableException")
	case *cassandra19.TimedOutException:
		return fmt.Errorf("TimedOutException")
	case *cassandra19.NotFoundException:
		return fmt.Errorf("NotFoundException")
	case *cassandra19.AuthenticationException:
		return fmt.Errorf("AuthenticationException: %s", e.Why)
	case *cassandra19.AuthorizationException:
		return fmt.Errorf("AuthorizationException: %s", e.Why)
	case *cassandra19.SchemaDisagreementException:
		return fmt.Errorf("SchemaDisagreementException")
	}
	return err
}
