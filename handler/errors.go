package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// InvalidRequest is a request the server refuses. Why is sent to the client
// unchanged as InvalidRequestException.why.
type InvalidRequest struct{ Why string }

func (e *InvalidRequest) Error() string { return e.Why }

// invalid returns an *InvalidRequest with a formatted why.
func invalid(format string, args ...any) error {
	return &InvalidRequest{Why: fmt.Sprintf(format, args...)}
}

// AuthenticationError is a login refused over the credentials; Why becomes
// AuthenticationException.why.
type AuthenticationError struct{ Why string }

func (e *AuthenticationError) Error() string { return e.Why }

// AuthorizationError is a login refused because the user may not use the
// keyspace; Why becomes AuthorizationException.why.
type AuthorizationError struct{ Why string }

func (e *AuthorizationError) Error() string { return e.Why }

// errNotFound is get's "nothing live at that path".
var errNotFound = errors.New("not found")

// errInternal is what a client is told about a failure that is not its
// fault; the details go to the server log only. The generated processor
// turns it into TApplicationException INTERNAL_ERROR
// "Internal error processing <method>: <this text>".
var errInternal = errors.New("internal error; see the server log")

// toThrift is the one place where domain errors become the exceptions the
// IDL declares. ok is false for an error with no Thrift meaning: a storage
// failure or a bug.
func toThrift(err error) (thriftErr error, ok bool) {
	if err == nil {
		// Before the errors.As targets, which would cost a success six
		// allocations.
		return nil, true
	}
	var (
		ire     *InvalidRequest
		refused *engine.RefusedError
		authn   *AuthenticationError
		authz   *AuthorizationError
	)
	var (
		pwRefused *auth.AuthenticationError
		denied    *auth.UnauthorizedError
	)
	switch {
	case err == nil:
		return nil, true
	case errors.As(err, &denied):
		// As Cassandra 2.1 sent an UnauthorizedException over Thrift.
		return &cassandra.InvalidRequestException{Why: denied.Why}, true
	case errors.As(err, &pwRefused):
		return &cassandra.AuthenticationException{Why: pwRefused.Why}, true
	case errors.As(err, &ire):
		return &cassandra.InvalidRequestException{Why: ire.Why}, true
	case errors.As(err, &refused):
		return &cassandra.InvalidRequestException{Why: refused.Why}, true
	case errors.Is(err, errNotFound):
		return cassandra.NewNotFoundException(), true
	case errors.As(err, &authn):
		return &cassandra.AuthenticationException{Why: authn.Why}, true
	case errors.As(err, &authz):
		return &cassandra.AuthorizationException{Why: authz.Why}, true
	case errors.Is(err, engine.ErrUnavailable):
		// A replicating store lacks live replicas for the level.
		return cassandra.NewUnavailableException(), true
	case errors.Is(err, engine.ErrTimedOut):
		return cassandra.NewTimedOutException(), true
	case errors.Is(err, context.DeadlineExceeded):
		// The request outlived RpcTimeoutInMillis, as 0.6's coordinator
		// did when replicas were slow.
		return cassandra.NewTimedOutException(), true
	}
	return nil, false
}

// reply converts the result of one call for the generated processor.
// Errors without a Thrift meaning are logged with the method name and
// replaced by errInternal.
func (s *Service) reply(ctx context.Context, method string, err error) error {
	if t, ok := toThrift(err); ok {
		return t
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// The client went away; there is nobody to answer.
		s.log.Debug("call abandoned", "method", method, "err", err)
		return err
	}
	s.log.Error("internal error", "method", method, "err", err)
	return errInternal
}

// replyOn is reply for a call on keyspace and family ("" for none or
// several): a call answered TimedOutException is logged at warning level
// with them and the bound that ran out, so that an operator can tell a
// slow cluster from a bound set too tight.
func (s *Service) replyOn(ctx context.Context, method, keyspace, family string, err error) error {
	t := s.reply(ctx, method, err)
	if _, ok := t.(*cassandra.TimedOutException); ok {
		bound, detail := "store", "the store gave up"
		var to *engine.TimedOutError
		switch {
		case errors.As(err, &to):
			bound, detail = to.Source, to.Detail
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
			bound, detail = "call", fmt.Sprintf("the call's deadline of %v (RpcTimeoutInMillis) passed", s.timeout)
		}
		s.log.Warn("TimedOutException", "method", method, "keyspace", keyspace, "column_family", family,
			"bound", bound, "detail", detail, "err", err.Error())
	}
	return t
}

// familyOfParent is the column family parent names; "" for none.
func familyOfParent(parent *cassandra.ColumnParent) string {
	if parent == nil {
		return ""
	}
	return parent.ColumnFamily
}

// familyOfPath is the column family path names; "" for none.
func familyOfPath(path *cassandra.ColumnPath) string {
	if path == nil {
		return ""
	}
	return path.ColumnFamily
}

// undeclared converts the result of a call whose IDL declares no
// exceptions (describe_splits). The generated processor can only send such
// a call's errors as TApplicationException INTERNAL_ERROR, so a client error
// travels there with its why as the message, and is not logged as a fault.
func (s *Service) undeclared(ctx context.Context, method string, err error) error {
	var ire *InvalidRequest
	if errors.As(err, &ire) {
		return errors.New(ire.Why)
	}
	return s.reply(ctx, method, err)
}

// recoverPanic turns a panic in a handler into an internal error with its
// stack in the log, so one bad request cannot take the server down.
func (s *Service) recoverPanic(method string, err *error) {
	if r := recover(); r != nil {
		s.log.Error("panic in handler", "method", method, "panic", fmt.Sprint(r),
			slog.String("stack", string(debug.Stack())))
		*err = errInternal
	}
}
