package migrate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// originConn is one connection to the origin, made when a client
// connection first needs it and remade after a transport error, with the
// client's keyspace set again.
type originConn struct {
	*cassandra19.CassandraClient
	trans thrift.TTransport
}

// maxMessage is the largest reply accepted from the origin.
const maxMessage = 256 << 20

// dialOrigin connects, logs in with the origin's credentials and sets
// keyspace when not empty.
func dialOrigin(ctx context.Context, o Origin, keyspace string) (*originConn, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: o.Timeout, MaxMessageSize: maxMessage, MaxFrameSize: maxMessage}
	var sock thrift.TTransport
	if o.TLS != nil {
		cfg.TLSConfig = o.TLS.Clone()
		sock = thrift.NewTSSLSocketConf(o.Addr, cfg)
	} else {
		sock = thrift.NewTSocketConf(o.Addr, cfg)
	}
	trans := thrift.NewTFramedTransportConf(sock, cfg)
	if err := trans.Open(); err != nil {
		return nil, &unreachable{addr: o.Addr, err: err}
	}
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	c := &originConn{cassandra19.NewCassandraClientProtocol(trans, proto, proto), trans}
	if o.Username != "" {
		req := &cassandra19.AuthenticationRequest{Credentials: map[string]string{"username": o.Username, "password": o.Password}}
		if err := c.Login(ctx, req); err != nil {
			c.trans.Close()
			return nil, fmt.Errorf("login to the origin %s as %s: %w", o.Addr, o.Username, describe(err))
		}
	}
	if keyspace != "" {
		if err := c.SetKeyspace(ctx, keyspace); err != nil {
			c.trans.Close()
			return nil, err
		}
	}
	return c, nil
}

// unreachable is an origin that did not take the connection.
type unreachable struct {
	addr string
	err  error
}

func (u *unreachable) Error() string {
	return fmt.Sprintf("the origin %s is unreachable: %v", u.addr, u.err)
}
func (u *unreachable) Unwrap() error { return u.err }

// isTransport reports whether err is the connection's failure rather
// than the origin's answer: the connection is then dropped.
func isTransport(err error) bool {
	if err == nil {
		return false
	}
	var te thrift.TTransportException
	var pe thrift.TProtocolException
	var ne net.Error
	var u *unreachable
	return errors.As(err, &te) || errors.As(err, &pe) || errors.As(err, &ne) || errors.As(err, &u)
}
