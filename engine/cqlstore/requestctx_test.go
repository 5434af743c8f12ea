package cqlstore

import (
	"context"
	"net"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The request's state is found under its deadline, and the deadline
// ends with its parent.
func TestRequestContext(t *testing.T) {
	st := &Store{opts: Options{Cluster: Cluster{Timeout: time.Hour}}}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKeyForTest{}, "v"))
	ctx, done := st.withRequestTimeout(parent)
	defer done()
	if r := requestOf(ctx); r == nil || r.timeout != time.Hour || r.store != st {
		t.Fatalf("request state %+v, want the store's with its timeout", r)
	}
	if ctx.Value(ctxKeyForTest{}) != "v" {
		t.Fatal("a value of the parent is lost")
	}
	if got := coordinatorOf(ctx); got != "" {
		t.Fatalf("coordinator %q before a request was sent", got)
	}
	host, err := gocql.NewHostInfoFromAddrPort(net.ParseIP("127.0.0.2"), 9042)
	if err != nil {
		t.Fatal(err)
	}
	noteCoordinator(ctx, host)
	if got := coordinatorOf(ctx); got != ", coordinator 127.0.0.2:9042" {
		t.Fatalf("coordinator %q, want 127.0.0.2:9042", got)
	}
	cancel()
	<-ctx.Done()
	if ctx.Err() != context.Canceled {
		t.Fatalf("after the parent's cancel: %v", ctx.Err())
	}
}

type ctxKeyForTest struct{}
