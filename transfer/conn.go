// Package transfer moves a keyspace's data out of and into any server that
// speaks Cassandra 0.6's Thrift API (thriftd on either backend, or a
// Cassandra 0.6 cluster), using only 0.6 calls: describe_keyspace,
// get_range_slices paged by start_key, get_slice paged inside a row, and
// batch_mutate. Export writes 0.6's sstable2json files (package
// sstablejson), Import reads them, Copy streams from one server to another.
//
// The 19.x and 20.x API (Cassandra 0.7 to 3.11, and thriftd) is spoken
// too: Copy reads such a source through it and creates the schema on the
// target (copy19.go), Export12 and Import12 write and read the JSON of
// Cassandra 1.x's sstable2json through it.
//
// All three hold a bounded amount of data (see Options), keep every
// timestamp, stop at a row boundary when their context is cancelled, and
// record in a checkpoint file the last row completed in each column
// family, from which a later run resumes.
package transfer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Endpoint is a server and how to reach it.
type Endpoint struct {
	// Addr is HOST:PORT.
	Addr string
	// Framed selects TFramedTransport (0.6's ThriftFramedTransport=true);
	// otherwise the buffered transport 0.6 used by default.
	Framed bool
	// Username and Password, when Username is set, are sent with login
	// (SimpleAuthenticator) for the keyspace before any other call.
	Username, Password string
	// Timeout bounds each call; 0 means 2 minutes.
	Timeout time.Duration
	// TLS, when set, is the client side of TLS to a server whose Thrift
	// port has client_encryption_options enabled; nil speaks plain Thrift.
	TLS *tls.Config
}

// socket is the transport under the framing: a TCP socket, or a TLS one
// when ep.TLS is set.
func (ep Endpoint) socket(cfg *thrift.TConfiguration) thrift.TTransport {
	if ep.TLS != nil {
		cfg.TLSConfig = ep.TLS.Clone()
		return thrift.NewTSSLSocketConf(ep.Addr, cfg)
	}
	return thrift.NewTSocketConf(ep.Addr, cfg)
}

// conn is one connection to a server, logged in to one keyspace.
type conn struct {
	*cassandra.CassandraClient
	trans thrift.TTransport
	addr  string
}

// maxMessage is the largest reply accepted from a server.
const maxMessage = 256 << 20

func dial(ctx context.Context, ep Endpoint, keyspace string) (*conn, error) {
	timeout := ep.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: timeout, MaxMessageSize: maxMessage, MaxFrameSize: maxMessage}
	trans := ep.socket(cfg)
	if ep.Framed {
		trans = thrift.NewTFramedTransportConf(trans, cfg)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 64<<10)
	}
	if err := trans.Open(); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", ep.Addr, err)
	}
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	c := &conn{cassandra.NewCassandraClientProtocol(trans, exactProtocol{proto}, proto), trans, ep.Addr}
	if ep.Username != "" {
		auth := &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": ep.Username, "password": ep.Password}}
		if err := c.Login(ctx, keyspace, auth); err != nil {
			c.Close()
			return nil, fmt.Errorf("login to %s as %s for keyspace %s: %w", ep.Addr, ep.Username, keyspace, describeErr(err))
		}
	}
	return c, nil
}

func (c *conn) Close() error { return c.trans.Close() }

// describeErr turns a Thrift exception into an error whose text says
// what the server said.
func describeErr(err error) error {
	var ire *cassandra.InvalidRequestException
	var nf *cassandra.NotFoundException
	var un *cassandra.UnavailableException
	var to *cassandra.TimedOutException
	var au *cassandra.AuthenticationException
	var az *cassandra.AuthorizationException
	switch {
	case errors.As(err, &ire):
		return fmt.Errorf("invalid request: %s", ire.Why)
	case errors.As(err, &nf):
		return errors.New("not found")
	case errors.As(err, &un):
		return errors.New("unavailable: not enough replicas alive for the consistency level")
	case errors.As(err, &to):
		return errors.New("timed out on the server")
	case errors.As(err, &au):
		return fmt.Errorf("authentication failed: %s", au.Why)
	case errors.As(err, &az):
		return fmt.Errorf("not authorized: %s", az.Why)
	}
	return err
}

// Family is a column family as describe_keyspace reports it.
type Family struct {
	Name  string
	Super bool
	// CompareWith and CompareSubcolumnsWith are the comparator classes.
	CompareWith, CompareSubcolumnsWith string
}

// describe returns the column families of keyspace, sorted by name.
func describe(ctx context.Context, c *conn, keyspace string) (map[string]Family, []string, error) {
	desc, err := c.DescribeKeyspace(ctx, keyspace)
	if err != nil {
		var nf *cassandra.NotFoundException
		if errors.As(err, &nf) {
			return nil, nil, fmt.Errorf("keyspace %s does not exist on %s", keyspace, c.addr)
		}
		return nil, nil, fmt.Errorf("describe_keyspace %s on %s: %w", keyspace, c.addr, describeErr(err))
	}
	fams := make(map[string]Family, len(desc))
	var names []string
	for name, props := range desc {
		f := Family{Name: name, Super: props["Type"] == "Super", CompareWith: props["CompareWith"], CompareSubcolumnsWith: props["CompareSubcolumnsWith"]}
		if f.CompareWith == "" {
			f.CompareWith = "org.apache.cassandra.db.marshal.BytesType"
		}
		if f.Super && f.CompareSubcolumnsWith == "" {
			f.CompareSubcolumnsWith = "org.apache.cassandra.db.marshal.BytesType"
		}
		fams[name] = f
		names = append(names, name)
	}
	sort.Strings(names)
	return fams, names, nil
}

// choose returns the families named in want (all when want is empty),
// or an error naming those the keyspace lacks.
func choose(fams map[string]Family, all []string, want []string, keyspace, addr string) ([]Family, error) {
	if len(want) == 0 {
		want = all
	}
	var out []Family
	var missing []string
	for _, n := range want {
		f, ok := fams[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		out = append(out, f)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("keyspace %s on %s has no column family %s (it has: %s)", keyspace, addr, strings.Join(missing, ", "), strings.Join(all, ", "))
	}
	return out, nil
}

// sameShape checks that a target column family can hold a source's data.
func sameShape(src, dst Family, dstAddr string) error {
	if src.Super != dst.Super {
		return fmt.Errorf("column family %s is %s on the source but %s on %s", src.Name, kind(src.Super), kind(dst.Super), dstAddr)
	}
	if src.CompareWith != dst.CompareWith || src.CompareSubcolumnsWith != dst.CompareSubcolumnsWith {
		return fmt.Errorf("column family %s compares with %s on the source but %s on %s: names would sort differently or be refused",
			src.Name, comparators(src), comparators(dst), dstAddr)
	}
	return nil
}

func kind(super bool) string {
	if super {
		return "Super"
	}
	return "Standard"
}

func comparators(f Family) string {
	if f.Super {
		return f.CompareWith + "/" + f.CompareSubcolumnsWith
	}
	return f.CompareWith
}

// exactProtocol reads strings and binaries into buffers of their size.
// Thrift 0.17 grows a bytes.Buffer from 512 bytes for each value, which
// made a page of small columns take ten times its size in memory. A
// length is trusted only up to maxMessage, and memory grows with the
// bytes that arrive, never ahead of them by more than 1 MiB.
type exactProtocol struct {
	thrift.TProtocol
}

func (p exactProtocol) ReadBinary(ctx context.Context) ([]byte, error) {
	n, err := p.ReadI32(ctx)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxMessage {
		return nil, thrift.NewTProtocolExceptionWithType(thrift.SIZE_LIMIT, fmt.Errorf("a value of %d bytes", n))
	}
	buf := make([]byte, 0, min(int(n), 1<<20))
	for len(buf) < int(n) {
		chunk := min(int(n)-len(buf), 1<<20)
		if cap(buf)-len(buf) < chunk {
			buf = slices.Grow(buf, chunk)
		}
		if _, err := io.ReadFull(p.Transport(), buf[len(buf):len(buf)+chunk]); err != nil {
			return nil, thrift.NewTTransportExceptionFromError(err)
		}
		buf = buf[:len(buf)+chunk]
	}
	return buf, nil
}

func (p exactProtocol) ReadString(ctx context.Context) (string, error) {
	b, err := p.ReadBinary(ctx)
	return string(b), err
}
