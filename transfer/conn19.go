package transfer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// conn19 is one connection to a server of the 19.x API (Cassandra 0.7 to
// 2.1, or thriftd) or the 20.x API (Cassandra 2.2 to 3.11), in one
// keyspace. Those servers take TFramedTransport only (thriftd takes both).
type conn19 struct {
	*cassandra19.CassandraClient
	trans thrift.TTransport
	addr  string
}

func (c *conn19) Close() error { return c.trans.Close() }

// dial19 connects over TFramedTransport, logs in when ep has a username
// and, when keyspace is not empty, sets it as the connection's keyspace.
func dial19(ctx context.Context, ep Endpoint, keyspace string) (*conn19, error) {
	timeout := ep.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	c, err := open19(ep, timeout)
	if err != nil {
		return nil, err
	}
	if ep.Username != "" {
		auth := &cassandra19.AuthenticationRequest{Credentials: map[string]string{"username": ep.Username, "password": ep.Password}}
		if err := c.Login(ctx, auth); err != nil {
			c.Close()
			return nil, fmt.Errorf("login to %s as %s: %w", ep.Addr, ep.Username, describeErr19(err))
		}
	}
	if keyspace != "" {
		if err := c.SetKeyspace(ctx, keyspace); err != nil {
			c.Close()
			return nil, fmt.Errorf("set_keyspace %s on %s: %w", keyspace, ep.Addr, describeErr19(err))
		}
	}
	return c, nil
}

func open19(ep Endpoint, timeout time.Duration) (*conn19, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: timeout, MaxMessageSize: maxMessage, MaxFrameSize: maxMessage}
	trans := thrift.NewTFramedTransportConf(ep.socket(cfg), cfg)
	if err := trans.Open(); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", ep.Addr, err)
	}
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	return &conn19{cassandra19.NewCassandraClientProtocol(trans, exactProtocol{proto}, proto), trans, ep.Addr}, nil
}

// probe19 asks ep for describe_version over TFramedTransport and
// reports whether it answers a 19.x or 20.x version (Cassandra 0.7 to
// 3.11, or thriftd), and the version. A 0.6 server answers 2.x, or
// nothing over a framing it does not take: that is not an error, the
// caller goes on with 0.6's API.
func probe19(ep Endpoint) (bool, string) {
	c, err := open19(ep, 5*time.Second)
	if err != nil {
		return false, ""
	}
	defer c.Close()
	v, err := c.DescribeVersion(context.Background())
	if err != nil {
		return false, ""
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && (n == 19 || n == 20), v
}

// describeErr19 is describeErr for the 19.x API's exceptions.
func describeErr19(err error) error {
	var ire *cassandra19.InvalidRequestException
	var nf *cassandra19.NotFoundException
	var un *cassandra19.UnavailableException
	var to *cassandra19.TimedOutException
	var au *cassandra19.AuthenticationException
	var az *cassandra19.AuthorizationException
	var sd *cassandra19.SchemaDisagreementException
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
	case errors.As(err, &sd):
		return errors.New("schema disagreement: the cluster's nodes do not agree on the schema yet")
	}
	return err
}
