"""Shared pieces of the 19.x Python suite: a thriftd serving the 19.x API
(or, with THRIFTD19_TARGET=host:port, any server of the 19.x API, such as
the real Cassandra 1.2.19 node of test/cassandra/reference, to check that
the suite's expectations are the real server's), and clients of the
generated 19.x bindings used the way pycassa 1.x uses them."""

import os
import struct
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(REPO, 'test', 'python'))
sys.path.insert(0, os.path.join(REPO, 'clients', 'python'))

from thrift.protocol import TBinaryProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from cassandra19 import Cassandra  # noqa: E402
from cassandra19.ttypes import ConsistencyLevel  # noqa: E402

ONE = ConsistencyLevel.ONE
QUORUM = ConsistencyLevel.QUORUM


def target():
    """host:port of a server to test instead of a thriftd of our own, or
    None."""
    return os.environ.get('THRIFTD19_TARGET') or None


class Client(object):
    """A generated 19.x Cassandra.Client over a framed socket, as pycassa
    connects (TFramedTransport, TBinaryProtocolAccelerated's wire)."""

    def __init__(self, host, port, keyspace=None, framed=True, timeout=10, sock=None):
        """sock replaces the plain TSocket, e.g. by a TSSLSocket."""
        sock = sock or TSocket.TSocket(host, port)
        sock.setTimeout(timeout * 1000)
        self.transport = TTransport.TFramedTransport(sock) if framed else TTransport.TBufferedTransport(sock)
        protocol = TBinaryProtocol.TBinaryProtocol(self.transport)
        self.transport.open()
        self.client = Cassandra.Client(protocol)
        if keyspace is not None:
            self.client.set_keyspace(keyspace)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def close(self):
        self.transport.close()


def i64(n):
    """A LongType value: 8 bytes, big-endian, signed."""
    return struct.pack('>q', n)


def composite(*parts, eoc=0):
    """A CompositeType name packed as pycassa packs it: each component as a
    2-byte length, the bytes and an end-of-component byte (eoc on the
    last, 0 on the others). Components are bytes, str (UTF-8) or int
    (LongType)."""
    out = b''
    for i, p in enumerate(parts):
        if isinstance(p, int):
            b = i64(p)
        elif isinstance(p, str):
            b = p.encode('utf-8')
        else:
            b = p
        last = i == len(parts) - 1
        out += struct.pack('>H', len(b)) + b + struct.pack('>b', eoc if last else 0)
    return out


def unpack_composite(name):
    parts = []
    while name:
        n = struct.unpack('>H', name[:2])[0]
        parts.append(name[2:2 + n])
        name = name[3 + n:]
    return parts


def timeuuid():
    return uuid.uuid1().bytes


def wait_until(cond, what, timeout=120):
    """Polls cond until it holds: a TTL's expiry is waited for, as long as
    a busy machine needs, up to timeout seconds."""
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError('after %d s, %s' % (timeout, what))
        time.sleep(0.2)


def unique(prefix):
    """A name no other test uses, also across runs on a shared server."""
    return prefix + uuid.uuid4().hex[:10]
