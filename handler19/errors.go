package handler19

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// InvalidRequest is a request the server refuses; Why is sent unchanged as
// InvalidRequestException.why.
type InvalidRequest struct{ Why string }

func (e *InvalidRequest) Error() string { return e.Why }

func invalid(format string, args ...any) error {
	return &InvalidRequest{Why: fmt.Sprintf(format, args...)}
}

// invalidWhy is the why of a refusal that is the client's fault: the
// handler's own, or the schema catalog's (a SchemaChanger's), whose
// wording is the real server's too.
func invalidWhy(err error) (string, bool) {
	var (
		ire     *InvalidRequest
		refusal *catalog.InvalidError
		denied  *auth.UnauthorizedError
	)
	switch {
	case errors.As(err, &ire):
		return ire.Why, true
	case errors.As(err, &denied):
		// ThriftConversion.toThrift(RequestValidationException).
		return denied.Why, true
	case errors.As(err, &refusal):
		return refusal.Why, true
	}
	return "", false
}

// errNotFound is get's "nothing live at that path".
var errNotFound = errors.New("not found")

// errInternal is what a client is told of a failure that is not its own;
// the details go to the server log.
var errInternal = errors.New("internal error; see the server log")

// toThrift is the one place where domain errors become the exceptions the
// 19.x IDL declares. ok is false for an error with no Thrift meaning.
func toThrift(err error) (thriftErr error, ok bool) {
	if err == nil {
		// Before any errors.As: its targets would cost a success three
		// allocations.
		return nil, true
	}
	var (
		refused *engine.RefusedError
		authn   *auth.AuthenticationError
		gone    *engine.UnknownColumnFamilyError
	)
	if why, ok := invalidWhy(err); ok {
		return &cassandra19.InvalidRequestException{Why: why}, true
	}
	switch {
	case errors.As(err, &refused):
		return &cassandra19.InvalidRequestException{Why: refused.Why}, true
	case errors.Is(err, errNotFound):
		return cassandra19.NewNotFoundException(), true
	case errors.As(err, &gone):
		return &cassandra19.InvalidRequestException{Why: gone.Error()}, true
	case errors.As(err, &authn):
		return &cassandra19.AuthenticationException{Why: authn.Why}, true
	case errors.Is(err, engine.ErrUnavailable):
		return cassandra19.NewUnavailableException(), true
	case errors.Is(err, engine.ErrTimedOut), errors.Is(err, context.DeadlineExceeded):
		return cassandra19.NewTimedOutException(), true
	}
	return nil, false
}

// reply converts the outcome of one call for the generated processor.
// Errors without a Thrift meaning are logged with the method's name and
// replaced by errInternal.
func (s *Service) reply(ctx context.Context, method string, err error) error {
	if t, ok := toThrift(err); ok {
		return t
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		s.log.Debug("call abandoned", "method", method, "err", err)
		return err
	}
	s.log.Error("internal error", "method", method, "err", err)
	return errInternal
}

// reply is Service.reply for a call of this connection: a call answered
// TimedOutException is logged at warning level with its keyspace and
// column family and the bound that ran out (timeoutBound), so that an
// operator can tell a slow cluster from a bound set too tight.
func (c *conn) reply(ctx context.Context, method string, err error) error {
	t := c.s.reply(ctx, method, err)
	if _, ok := t.(*cassandra19.TimedOutException); ok {
		bound, detail := c.s.timeoutBound(ctx, err)
		c.s.log.Warn("TimedOutException", "method", method, "keyspace", c.keyspace, "column_family", c.family,
			"bound", bound, "detail", detail, "err", err.Error())
	}
	return t
}

// timeoutBound names the bound behind a call's TimedOutException: the
// store's (engine.TimedOutError: the node's, the driver's, the store's
// per-request bound, a busy pool), or the call's own deadline
// (Options.Timeout, from RpcTimeoutInMillis), which ended ctx.
func (s *Service) timeoutBound(ctx context.Context, err error) (bound, detail string) {
	var to *engine.TimedOutError
	switch {
	case errors.As(err, &to):
		return to.Source, to.Detail
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return "call", fmt.Sprintf("the call's deadline of %v (RpcTimeoutInMillis) passed", s.timeout)
	}
	return "store", "the store gave up"
}

// schemaReply converts the outcome of a system_* call, whose IDL declares
// InvalidRequestException and SchemaDisagreementException only. A change
// the cluster did not confirm (the schema record's write timed out or
// found too few replicas alive, after the store's retries) reaches the
// client as SchemaDisagreementException, the exception 1.2 and 2.1
// declare for a change the nodes may not agree on yet, rather than as an
// internal error: the change may or may not have been made, and
// describe_schema_versions and describe_keyspace tell which once the
// cluster answers again.
func (s *Service) schemaReply(ctx context.Context, method string, err error) error {
	if _, refused := invalidWhy(err); !refused &&
		(errors.Is(err, engine.ErrTimedOut) || errors.Is(err, engine.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)) {
		s.log.Warn("schema change not confirmed by the cluster", "method", method, "err", err)
		return cassandra19.NewSchemaDisagreementException()
	}
	return s.reply(ctx, method, err)
}

// undeclared converts the outcome of a call whose IDL declares no
// exception: the generated processor can only send an error as
// TApplicationException INTERNAL_ERROR, so a refusal travels there with
// its why as the message, as the real server's did.
func (s *Service) undeclared(ctx context.Context, method string, err error) error {
	if why, ok := invalidWhy(err); ok {
		return errors.New(why)
	}
	return s.reply(ctx, method, err)
}

// recoverPanic turns a panic in a call into an internal error with its
// stack in the log, so that one request cannot take the server down.
func (s *Service) recoverPanic(method string, err *error) {
	if r := recover(); r != nil {
		s.log.Error("panic in handler", "method", method, "panic", fmt.Sprint(r),
			slog.String("stack", string(debug.Stack())))
		*err = errInternal
	}
}
