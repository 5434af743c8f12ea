package rpcmetrics

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

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
