package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func sliceArgs(key string) *cassandra.CassandraGetSliceArgs {
	return &cassandra.CassandraGetSliceArgs{
		Keyspace:         "Keyspace1",
		Key:              key,
		ColumnParent:     &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		Predicate:        &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("a"), []byte("bc")}},
		ConsistencyLevel: cassandra.ConsistencyLevel_QUORUM,
	}
}

// checkSliceEcho checks the test handler's echo of sliceArgs(key).
func checkSliceEcho(t *testing.T, got []*cassandra.ColumnOrSuperColumn, key string) {
	t.Helper()
	want := []string{"Keyspace1=" + key, "cf=Standard1", "a=a", "bc=bc"}
	if len(got) != len(want) {
		t.Fatalf("got %d columns, want %d", len(got), len(want))
	}
	for i, c := range got {
		if s := string(c.Column.Name) + "=" + string(c.Column.Value); s != want[i] {
			t.Errorf("column %d = %q, want %q", i, s, want[i])
		}
	}
	if got[0].Column.Timestamp != int64(cassandra.ConsistencyLevel_QUORUM) {
		t.Errorf("consistency level echoed as %d", got[0].Column.Timestamp)
	}
}

// Every supported framing and protocol serves calls on one connection, and
// the processor (with its state) lives as long as the connection.
func TestGeneratedClients(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			client, trans, peer := dialClient(t, ts.addr, k)
			ctx := context.Background()

			v, err := client.DescribeVersion(ctx)
			if err != nil || v != "2.2.0" {
				t.Fatalf("describe_version = %q, %v", v, err)
			}
			cols, err := client.GetSlice(ctx, "Keyspace1", "row-ü", &cassandra.ColumnParent{ColumnFamily: "Standard1"},
				sliceArgs("").Predicate, cassandra.ConsistencyLevel_QUORUM)
			if err != nil {
				t.Fatal(err)
			}
			checkSliceEcho(t, cols, "row-ü")

			err = client.Login(ctx, "Keyspace1", &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": "bad"}})
			var authn *cassandra.AuthenticationException
			if !errors.As(err, &authn) || authn.Why != "bad user" {
				t.Fatalf("login: got %v, want AuthenticationException", err)
			}

			const n = 100
			for i := 1; i <= n; i++ {
				name, err := client.DescribeClusterName(ctx)
				if want := fmt.Sprintf("calls=%d", i); err != nil || name != want {
					t.Fatalf("call %d: got %q, %v; want %q", i, name, err, want)
				}
			}
			if got := ts.Stats().Requests; got != n+3 {
				t.Errorf("Stats().Requests = %d, want %d", got, n+3)
			}

			trans.Close()
			ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": peer, "reason": "client closed",
				"framing": k.name, "requests": fmt.Sprint(n + 3), "level": "DEBUG",
			})
		})
	}
}

// The old unversioned binary header is read, framed and unframed; the
// reply header is always versioned, and later messages on the connection
// may use either header.
func TestUnversionedHeader(t *testing.T) {
	for _, framed := range []bool{false, true} {
		k := clientKind{framed: framed}
		t.Run(fmt.Sprint("framed=", framed), func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			wrap := func(b []byte) []byte {
				if framed {
					return frame(b)
				}
				return b
			}

			c.send(t, wrap(cat(unversionedHeader("describe_version", 7), []byte{thrift.STOP})))
			var vres cassandra.CassandraDescribeVersionResult
			r := c.readReply(t, k, &vres)
			// 0x80 0x01 version, 0x00, type REPLY (2).
			if !bytes.Equal(r.header, []byte{0x80, 0x01, 0x00, 0x02}) {
				t.Errorf("reply header % x, want 80 01 00 02", r.header)
			}
			if r.name != "describe_version" || r.seq != 7 || vres.GetSuccess() != "2.2.0" {
				t.Errorf("got %s seq %d %q", r.name, r.seq, vres.GetSuccess())
			}

			args := encodeStruct(t, sliceArgs("k1"))
			c.send(t, wrap(cat(unversionedHeader("get_slice", 8), args)))
			var sres cassandra.CassandraGetSliceResult
			if r := c.readReply(t, k, &sres); r.name != "get_slice" || r.seq != 8 {
				t.Fatalf("got %s seq %d", r.name, r.seq)
			}
			checkSliceEcho(t, sres.GetSuccess(), "k1")

			c.send(t, wrap(cat(strictHeader("get_slice", 9), args)))
			sres = cassandra.CassandraGetSliceResult{}
			if r := c.readReply(t, k, &sres); r.seq != 9 {
				t.Fatalf("got seq %d", r.seq)
			}
			checkSliceEcho(t, sres.GetSuccess(), "k1")

			c.Close()
			want := "unframed binary (unversioned header)"
			if framed {
				want = "framed binary (unversioned header)"
			}
			ts.logs.waitRecord(t, map[string]string{"msg": "connection closed", "framing": want, "requests": "3"})
		})
	}
}

// Requests sent back to back before any reply is read are answered in order.
func TestPipelinedRequests(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			var all []byte
			for seq := int32(1); seq <= 5; seq++ {
				all = append(all, encodeCall(t, k, "get_slice", seq, sliceArgs(fmt.Sprint("key", seq)))...)
			}
			c.send(t, all)
			for seq := int32(1); seq <= 5; seq++ {
				var res cassandra.CassandraGetSliceResult
				r := c.readReply(t, k, &res)
				if r.seq != seq || r.typ != thrift.REPLY {
					t.Fatalf("reply %d: seq %d type %d", seq, r.seq, r.typ)
				}
				checkSliceEcho(t, res.GetSuccess(), fmt.Sprint("key", seq))
			}
		})
	}
}

// An unknown method gets 0.6's UNKNOWN_METHOD exception, its arguments are
// skipped, and the connection goes on.
func TestUnknownMethod(t *testing.T) {
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			c.send(t, encodeCall(t, k, "no_such_method", 3, sliceArgs("x")))
			r := c.readReply(t, k, nil)
			if r.typ != thrift.EXCEPTION || r.name != "no_such_method" || r.seq != 3 {
				t.Fatalf("got type %d name %q seq %d", r.typ, r.name, r.seq)
			}
			if r.appErr.TypeId() != thrift.UNKNOWN_METHOD || r.appErr.Error() != "Invalid method name: 'no_such_method'" {
				t.Fatalf("got exception %d %q", r.appErr.TypeId(), r.appErr.Error())
			}

			c.send(t, encodeCall(t, k, "describe_version", 4, &cassandra.CassandraDescribeVersionArgs{}))
			var res cassandra.CassandraDescribeVersionResult
			if r := c.readReply(t, k, &res); r.seq != 4 || res.GetSuccess() != "2.2.0" {
				t.Fatalf("after unknown method: seq %d %q", r.seq, res.GetSuccess())
			}
		})
	}
}

// Arguments that decode but lack a required field get a PROTOCOL_ERROR
// exception; the stream is still in step, so the connection stays open, as
// in Cassandra 0.6.
func TestMissingRequiredFieldKeepsConnection(t *testing.T) {
	for _, framed := range []bool{false, true} {
		k := clientKind{framed: framed}
		t.Run(fmt.Sprint("framed=", framed), func(t *testing.T) {
			ts := startServer(t, Options{}, nil)
			c := dialRaw(t, ts.addr)
			// get_slice args with only field 2 (key): keyspace is missing.
			args := []byte{thrift.STRING, 0, 2, 0, 0, 0, 1, 'k', thrift.STOP}
			msg := cat(strictHeader("get_slice", 11), args)
			if framed {
				msg = frame(msg)
			}
			c.send(t, msg)
			r := c.readReply(t, k, nil)
			if r.typ != thrift.EXCEPTION || r.seq != 11 || r.appErr.TypeId() != thrift.PROTOCOL_ERROR {
				t.Fatalf("got type %d seq %d exception %v", r.typ, r.seq, r.appErr)
			}
			if !strings.Contains(r.appErr.Error(), "Keyspace") {
				t.Errorf("exception %q does not name the missing field", r.appErr.Error())
			}

			c.send(t, encodeCall(t, k, "describe_version", 12, &cassandra.CassandraDescribeVersionArgs{}))
			var res cassandra.CassandraDescribeVersionResult
			if r := c.readReply(t, k, &res); r.seq != 12 || res.GetSuccess() != "2.2.0" {
				t.Fatalf("after protocol error: seq %d %q", r.seq, res.GetSuccess())
			}
		})
	}
}

// An undeclared handler error becomes INTERNAL_ERROR and the connection
// goes on; a panic becomes INTERNAL_ERROR, is logged with its stack, and
// closes that connection only; an abandoned request closes the connection.
func TestHandlerFailures(t *testing.T) {
	ts := startServer(t, Options{}, nil)
	ctx := context.Background()
	bystander, _, _ := dialClient(t, ts.addr, clientKinds[0])
	if _, err := bystander.DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}

	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			client, _, peer := dialClient(t, ts.addr, k)
			_, err := client.GetStringProperty(ctx, "error")
			var ae thrift.TApplicationException
			if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR {
				t.Fatalf("error property: got %v, want INTERNAL_ERROR", err)
			}
			if v, err := client.GetStringProperty(ctx, "still-open"); err != nil || v != "still-open" {
				t.Fatalf("after handler error: %q, %v", v, err)
			}

			_, err = client.GetStringProperty(ctx, "panic")
			if !errors.As(err, &ae) || ae.TypeId() != thrift.INTERNAL_ERROR ||
				ae.Error() != "Internal error processing get_string_property" {
				t.Fatalf("panic: got %v, want INTERNAL_ERROR reply", err)
			}
			if _, err := client.DescribeVersion(ctx); err == nil {
				t.Fatal("connection still served after a panic")
			}
			rec := ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": peer, "reason": "panic", "level": "ERROR",
				"method": "get_string_property",
			})
			if stack := fmt.Sprint(rec["stack"]); !strings.Contains(stack, "GetStringProperty") {
				t.Errorf("logged stack does not show the handler:\n%s", stack)
			}
		})
	}

	client, _, peer := dialClient(t, ts.addr, clientKinds[0])
	if _, err := client.GetStringProperty(ctx, "abandon"); err == nil {
		t.Fatal("abandoned request got a reply")
	}
	ts.logs.waitRecord(t, map[string]string{"peer": peer, "reason": "request abandoned"})

	if v, err := bystander.DescribeVersion(ctx); err != nil || v != "2.2.0" {
		t.Fatalf("other connection affected: %q, %v", v, err)
	}
	if got := ts.Stats().Failed; got != uint64(len(clientKinds)) {
		t.Errorf("Stats().Failed = %d, want %d (one per panic)", got, len(clientKinds))
	}
}
