// Package dialect serves the two Thrift interfaces of Cassandra on one
// port: the 0.6 API (2.2.0, cassandra.thrift) and the 19.x API of 0.7 to
// 2.1 (cassandra19.thrift). For each call it decides which interface the
// client speaks and hands the call to that interface's processor; the
// processors themselves (packages handler and handler19) know nothing of
// each other.
//
// A call is told apart by its method name when only one interface has the
// method, and otherwise by the wire types of its arguments (Classify).
// Three calls look alike in both interfaces and expect different replies
// (describe_keyspaces, describe_keyspace, describe_version), and two look
// alike and get compatible ones (describe_cluster_name, describe_ring):
// these are answered in the dialect the connection has shown by its latest
// call that showed one, and on a fresh connection in the dialect its
// transport suggests (Default).
package dialect

import (
	"context"
	"net"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/server"
)

// Dialect is one of the two interfaces.
type Dialect int

// The dialects. Unknown means the request does not show which.
const (
	Unknown Dialect = iota
	V06             // Cassandra 0.6, API 2.2.0
	V19             // Cassandra 0.7 to 2.1, API 19.x
)

func (d Dialect) String() string {
	switch d {
	case V06:
		return "0.6"
	case V19:
		return "19.x"
	}
	return "unknown"
}

// Parse reads a dialect as the api setting writes it: "0.6" or "19.x"
// ("19" is accepted too).
func Parse(s string) (Dialect, bool) {
	switch s {
	case "0.6":
		return V06, true
	case "19.x", "19":
		return V19, true
	}
	return Unknown, false
}

// Default decides the dialect of a fresh connection's ambiguous calls.
type Default struct {
	// Fixed, when not Unknown, is the answer for every fresh connection
	// (the api setting).
	Fixed Dialect
	// FramedV06 makes framed connections 0.6 too: storage-conf.xml sets
	// ThriftFramedTransport, the only way a 0.6 client was ever framed.
	FramedV06 bool
}

// For returns the dialect of a fresh connection with that transport.
// Unframed means 0.6, since 0.6 clients default to unframed and every
// client since 0.8 is framed; framed means 19.x unless FramedV06.
func (d Default) For(framed bool) Dialect {
	switch {
	case d.Fixed != Unknown:
		return d.Fixed
	case framed && !d.FramedV06:
		return V19
	}
	return V06
}

// Router builds the processor of each connection. V06 and V19 build the
// processor of one interface for one connection; they are called once per
// connection, so per-connection state (a login, a keyspace) lives inside
// what they return.
type Router struct {
	V06, V19 func() thrift.TProcessor
	// V06From and V19From, when set, take the place of V06 and V19, given
	// the client's and the server's addresses (HOST:PORT), which a login
	// and its audit log need.
	V06From, V19From func(peer, host string) thrift.TProcessor
	Default          Default
}

// NewProcessor is a server.NewProcessor.
func (r *Router) NewProcessor(nc net.Conn) thrift.TProcessor {
	v06, v19 := r.V06, r.V19
	if nc != nil {
		peer, host := addrString(nc.RemoteAddr()), addrString(nc.LocalAddr())
		if r.V06From != nil {
			v06 = func() thrift.TProcessor { return r.V06From(peer, host) }
		}
		if r.V19From != nil {
			v19 = func() thrift.TProcessor { return r.V19From(peer, host) }
		}
	}
	c := &connection{default_: r.Default, procs: [3]thrift.TProcessor{V06: v06(), V19: v19()}}
	c.funcs = map[string]thrift.TProcessorFunction{}
	for _, d := range []Dialect{V06, V19} {
		for name := range c.procs[d].ProcessorMap() {
			if c.funcs[name] == nil {
				c.funcs[name] = &route{c: c, name: name}
			}
		}
	}
	return c
}

// connection is the processor of one connection: every method name of both
// interfaces, each routed per call.
type connection struct {
	default_ Default
	procs    [3]thrift.TProcessor
	funcs    map[string]thrift.TProcessorFunction
	// shown is the dialect of the latest call that showed one.
	shown Dialect
}

func (c *connection) Process(ctx context.Context, in, out thrift.TProtocol) (bool, thrift.TException) {
	// The server dispatches through ProcessorMap; this is only for callers
	// that use the processor whole.
	name, _, seq, err := in.ReadMessageBegin(ctx)
	if err != nil {
		return false, thrift.WrapTException(err)
	}
	fn := c.funcs[name]
	if fn == nil {
		in.Skip(ctx, thrift.STRUCT)
		in.ReadMessageEnd(ctx)
		x := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Invalid method name: '"+name+"'")
		out.WriteMessageBegin(ctx, name, thrift.EXCEPTION, seq)
		x.Write(ctx, out)
		out.WriteMessageEnd(ctx)
		out.Flush(ctx)
		return true, x
	}
	return fn.Process(ctx, seq, in, out)
}

func (c *connection) ProcessorMap() map[string]thrift.TProcessorFunction { return c.funcs }

func (c *connection) AddToProcessorMap(name string, fn thrift.TProcessorFunction) {
	c.funcs[name] = fn
}

// route is one method name of the union.
type route struct {
	c    *connection
	name string
}

func (r *route) Process(ctx context.Context, seq int32, in, out thrift.TProtocol) (bool, thrift.TException) {
	c := r.c
	d := r.dialect(in)
	fn := c.procs[d].ProcessorMap()[r.name]
	if fn == nil {
		// The arguments showed the other dialect, which lacks the
		// method's name; serve it with the one that has it.
		d = V06 + V19 - d
		fn = c.procs[d].ProcessorMap()[r.name]
	}
	return fn.Process(ctx, seq, in, out)
}

// dialect decides the call's dialect and remembers it when the call showed
// one.
func (r *route) dialect(in thrift.TProtocol) Dialect {
	c := r.c
	req, _ := in.(server.Request)
	d := Unknown
	if req != nil && !req.Compact() {
		d = Classify(r.name, req.PeekArgs)
	} else {
		d = ByName(r.name)
	}
	if d != Unknown {
		c.shown = d
		return d
	}
	if c.shown != Unknown {
		return c.shown
	}
	framed := req != nil && req.Framed()
	return c.default_.For(framed)
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}
