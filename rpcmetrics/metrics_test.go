package rpcmetrics

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

func TestExceptionName(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{thrift.WrapTException(&cassandra.InvalidRequestException{Why: "x"}), "InvalidRequestException"},
		{thrift.WrapTException(cassandra.NewNotFoundException()), "NotFoundException"},
		{cassandra.NewUnavailableException(), "UnavailableException"},
		{cassandra.NewTimedOutException(), "TimedOutException"},
		{&cassandra.AuthenticationException{}, "AuthenticationException"},
		{&cassandra.AuthorizationException{}, "AuthorizationException"},
		{&cassandra19.InvalidRequestException{Why: "x"}, "InvalidRequestException"},
		{cassandra19.NewSchemaDisagreementException(), "SchemaDisagreementException"},
		{thrift.WrapTException(errors.New("internal error")), "TApplicationException"},
		{thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, "bad"), "TApplicationException"},
		{thrift.WrapTException(thrift.ErrAbandonRequest), "abandoned"},
		{thrift.WrapTException(context.Canceled), "abandoned"},
		{errors.New("other"), "TApplicationException"},
	} {
		if got := ExceptionName(tc.err); got != tc.want {
			t.Errorf("ExceptionName(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

// indexingStore is a store whose only working method is its index.
type indexingStore struct {
	engine.Store
	asked string
}

func (s *indexingStore) IndexedKeys(_ context.Context, ks, cf string, column, value []byte, _ engine.Bounds, _ int) ([]string, bool, error) {
	s.asked = ks + "." + cf + "." + string(column) + "=" + string(value)
	return []string{"k1", "k2"}, true, nil
}

// The metered store keeps the index of the store it wraps visible to the
// handler (else every indexed query scans), and answers "not ready" over
// a store without one, so that the caller scans.
func TestStoreForwardsTheIndex(t *testing.T) {
	m := New(prometheus.NewRegistry())
	inner := &indexingStore{}
	ix, ok := m.Store(inner).(engine.Indexer)
	if !ok {
		t.Fatal("the metered store hides engine.Indexer")
	}
	keys, ready, err := ix.IndexedKeys(context.Background(), "KS", "CF", []byte("c"), []byte("v"), engine.Bounds{}, 10)
	if err != nil || !ready || len(keys) != 2 || inner.asked != "KS.CF.c=v" {
		t.Fatalf("IndexedKeys = %v, %v, %v; the store was asked %q", keys, ready, err, inner.asked)
	}
	keys, ready, err = m.Store(struct{ engine.Store }{}).(engine.Indexer).IndexedKeys(context.Background(), "KS", "CF", []byte("c"), []byte("v"), engine.Bounds{}, 10)
	if err != nil || ready || keys != nil {
		t.Fatalf("over a store without an index: %v, %v, %v; want not ready", keys, ready, err)
	}
}
