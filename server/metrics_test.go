package server

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
)

// TestCloseLabels checks that every way a connection ends has its label on
// thriftd_server_connections_closed_total, and the right one.
func TestCloseLabels(t *testing.T) {
	c := &conn{}
	for _, tc := range []struct {
		r    closeReason
		want string
	}{
		{closeReason{phase: phaseIdle, err: errShutdown}, "shutdown"},
		{closeReason{phase: phaseIdle, err: net.ErrClosed}, "shutdown"},
		{closeReason{phase: phaseProcess, err: panicError{"boom"}}, "panic"},
		{closeReason{phase: phaseRequest, err: &limitError{what: "frame", size: 1 << 30, limit: 1 << 20}}, "oversize"},
		{closeReason{phase: phaseRequest, err: thrift.NewTProtocolExceptionWithType(thrift.SIZE_LIMIT, errors.New("big"))}, "oversize"},
		{closeReason{phase: phaseProcess, err: errAbandoned}, "client"},
		{closeReason{phase: phaseReply, err: io.ErrClosedPipe}, "client"},
		{closeReason{phase: phaseIdle, err: os.ErrDeadlineExceeded}, "idle_timeout"},
		{closeReason{phase: phaseRequest, err: os.ErrDeadlineExceeded}, "request_timeout"},
		{closeReason{phase: phaseIdle, err: io.EOF}, "client"},
		{closeReason{phase: phaseRequest, err: io.ErrUnexpectedEOF}, "truncated"},
		{closeReason{phase: phaseRequest, err: errFrameEnd}, "protocol_error"},
		{closeReason{phase: phaseRequest, err: errTLSOnPlain}, "tls_on_plain"},
		{closeReason{phase: phaseRequest, err: thrift.NewTProtocolExceptionWithType(thrift.INVALID_DATA, errors.New("bad"))}, "protocol_error"},
		{closeReason{phase: phaseRequest, err: errors.New("connection reset")}, "read_error"},
	} {
		_, reason := c.classify(tc.r)
		if _, ok := closeLabels[reason]; !ok {
			t.Errorf("%v: reason %q has no label", tc.r.err, reason)
		}
		if got := closeLabel(reason); got != tc.want {
			t.Errorf("%v: label %q, want %q", tc.r.err, got, tc.want)
		}
	}
}
