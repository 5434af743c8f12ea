"""Connections to thriftd (or any Cassandra 0.6 node) over Thrift."""

import socket

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from cassandra import Cassandra
from cassandra.ttypes import AuthenticationRequest

__all__ = ['connect', 'Client']


def _split_server(server, default_port):
    host, sep, port = server.rpartition(':')
    if not sep:
        return server, default_port
    return host, int(port)


class Client(object):
    """One Thrift connection to a Cassandra 0.6 API server.

    Every method of the generated cassandra.Cassandra.Client is available
    on it (client.get_slice(...), client.describe_keyspaces(), ...); login
    also accepts a plain dict of credentials. Close it with close(), or use
    it as a context manager.
    """

    def __init__(self, host='localhost', port=9160, framed=False, timeout=None):
        self.host = host
        self.port = port
        self.framed = framed
        sock = TSocket.TSocket(host, port)
        if timeout is not None:
            sock.setTimeout(timeout * 1000.0)
        if framed:
            self._transport = TTransport.TFramedTransport(sock)
        else:
            self._transport = TTransport.TBufferedTransport(sock)
        protocol = TBinaryProtocol.TBinaryProtocolAccelerated(self._transport)
        self._client = Cassandra.Client(protocol)
        self._transport.open()
        self._schemas = {}

    def __getattr__(self, name):
        return getattr(self._client, name)

    def login(self, keyspace, credentials):
        """Log this connection in for keyspace; credentials is a dict such
        as {'username': 'alice', 'password': 'secret'} or an
        AuthenticationRequest. Raises AuthenticationException or
        AuthorizationException."""
        if not isinstance(credentials, AuthenticationRequest):
            credentials = AuthenticationRequest(credentials=dict(credentials))
        self._client.login(keyspace, credentials)

    def keyspace_schema(self, keyspace):
        """describe_keyspace(keyspace), fetched once per connection: the
        schema of a 0.6 server never changes while it runs."""
        if keyspace not in self._schemas:
            self._schemas[keyspace] = self._client.describe_keyspace(keyspace)
        return self._schemas[keyspace]

    def close(self):
        """Close the connection; the client cannot be used afterwards."""
        self._transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        framing = 'framed' if self.framed else 'unframed'
        return '<thriftd.Client %s:%s %s>' % (self.host, self.port, framing)


def connect(host='localhost', port=9160, framed=False, timeout=None, logins=None):
    """Open a Client.

    host may also be 'host:port', or a list of such servers (pycassa's
    style): they are tried in order and the first that accepts the
    connection is used. framed selects TFramedTransport (thriftd accepts
    both on one port; a Cassandra 0.6 node needs the framing it is
    configured with). timeout is in seconds (None waits forever). logins
    maps keyspace names to credential dicts to log in with right away.
    """
    if isinstance(host, (list, tuple)):
        servers = list(host)
    else:
        servers = [host]
    if not servers:
        raise ValueError('no server given')
    last_error = None
    for server in servers:
        h, p = _split_server(server, port)
        try:
            client = Client(h, p, framed=framed, timeout=timeout)
        except (TTransport.TTransportException, socket.error) as e:
            last_error = e
            continue
        for keyspace, credentials in (logins or {}).items():
            client.login(keyspace, credentials)
        return client
    raise last_error
