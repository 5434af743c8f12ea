"""The 19.x side of the transport, over real sockets to thriftd processes
of this test (whatever THRIFTD19_TARGET says: these are thriftd's own
rules, docs/api.md "Two APIs on one port" and docs/protocol.md): the API of
a fresh connection's look-alike calls by transport, storage-conf.xml, the
api key of thriftd.yaml and the -api flag; unknown methods and undecodable
arguments on framed and unframed connections; the empty frame Hector and
Astyanax send before closing."""

import json
import os
import socket
import struct
import time

import pytest
from thrift.Thrift import TApplicationException
from thrift.protocol import TBinaryProtocol
from thrift.transport import TTransport

from support19 import ONE, Client
from support import DEFAULT_CONF, Thriftd, connect_raw, derived_config, release_prefix
from cassandra19.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, KsDef, Mutation, SlicePredicate, SliceRange)

V06, V19 = '2.2.0', '19.39.0'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))


@pytest.fixture
def start(binary, tmp_path):
    nodes = []

    def start(config=DEFAULT_CONF, api='auto', extra=()):
        n = len(nodes)
        node = Thriftd(binary, config, str(tmp_path / ('data%d' % n)), extra, api=api,
                       workdir=str(tmp_path / ('work%d' % n)))
        nodes.append(node)
        return node.start()
    yield start
    for node in nodes:
        node.stop()
        release_prefix(node.data)


def version(node, framed):
    """describe_version on a fresh connection: the request is the same in
    both APIs, so the answer shows which one the server chose."""
    c = connect_raw(node.host, node.port, framed=framed)
    try:
        return c.describe_version()
    finally:
        c.close()


def framed_config(tmp_path):
    return derived_config(str(tmp_path), DEFAULT_CONF, 'framed-storage-conf.xml',
                          replace=[('<ThriftFramedTransport>false</ThriftFramedTransport>',
                                    '<ThriftFramedTransport>true</ThriftFramedTransport>')])


def yaml_config(tmp_path, storage_conf, api):
    path = os.path.join(str(tmp_path), 'thriftd-%s.yaml' % api)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('storage_conf: %s\napi: "%s"\n' % (storage_conf, api))
    return path


def test_fresh_connection_unframed_is_06_framed_is_19(start):
    node = start()
    assert version(node, framed=False) == V06
    assert version(node, framed=True) == V19


def test_thrift_framed_transport_makes_framed_06(start, tmp_path):
    node = start(framed_config(tmp_path))
    assert version(node, framed=True) == V06
    assert version(node, framed=False) == V06


def test_api_setting_overrides_the_transport(start, tmp_path):
    # thriftd.yaml's api key, then the -api flag over it. The launcher
    # names the storage-conf.xml (its store flags follow its partitioner);
    # the later -config, the thriftd.yaml naming the same file, wins.
    def with_yaml(api):
        return ['-config', yaml_config(tmp_path, DEFAULT_CONF, api)]
    node = start(api=None, extra=with_yaml('19.x'))
    assert version(node, framed=False) == V19
    assert version(node, framed=True) == V19
    node = start(api=None, extra=with_yaml('0.6'))
    assert version(node, framed=True) == V06
    node = start(api='19.x', extra=with_yaml('0.6'))
    assert version(node, framed=False) == V19
    node = start(framed_config(tmp_path), api='19.x')
    assert version(node, framed=True) == V19


def test_a_connection_keeps_the_api_it_showed(start):
    node = start()
    # Framed, but a 0.6-only call first: the look-alike calls follow it.
    c = connect_raw(node.host, node.port, framed=True)
    assert c.get_string_property('cluster name')
    assert c.describe_version() == V06
    c.close()
    # Unframed, but 19.x's set_keyspace first.
    c = Client(node.host, node.port, keyspace='Keyspace1', framed=False)
    assert c.describe_version() == V19
    assert 'Keyspace1' in [k.name for k in c.describe_keyspaces()]
    assert isinstance(c.describe_keyspace('Keyspace1'), KsDef)
    c.close()


def raw_call(name, args=b'\x00', seq=1):
    n = name.encode()
    return struct.pack('>Ii', 0x80010001, len(n)) + n + struct.pack('>i', seq) + args


def frame(msg):
    return struct.pack('>i', len(msg)) + msg


def read_framed(sock):
    """One framed reply: (message type, method name)."""
    f = sock.makefile('rb')
    body = f.read(struct.unpack('>i', f.read(4))[0])
    nlen = struct.unpack('>i', body[4:8])[0]
    return body[3], body[8:8 + nlen].decode()


@pytest.mark.parametrize('framed', [True, False], ids=['framed', 'unframed'])
def test_unknown_method_and_bad_arguments_keep_the_connection(start, framed):
    node = start()
    c = Client(node.host, node.port, keyspace='Keyspace1', framed=framed)
    proto = c.client._oprot
    # An unknown method, sent through the client's own protocol.
    proto.writeMessageBegin('no_such_method', 1, 7)
    proto.writeStructBegin('args')
    proto.writeFieldBegin('x', 11, 1)
    proto.writeString('abc')
    proto.writeFieldEnd()
    proto.writeFieldStop()
    proto.writeStructEnd()
    proto.writeMessageEnd()
    proto.trans.flush()
    iproto = c.client._iprot
    _, mtype, seq = iproto.readMessageBegin()
    x = TApplicationException()
    x.read(iproto)
    iproto.readMessageEnd()
    assert (mtype, seq, x.type, x.message) == (3, 7, TApplicationException.UNKNOWN_METHOD,
                                               "Invalid method name: 'no_such_method'")
    assert c.describe_version() == V19
    # A 19.x call whose nested struct lacks a required field, with more
    # arguments after it: refused, and the connection stays in step.
    with pytest.raises(TApplicationException) as e:
        c.get_slice(b'k', ColumnParent(), ALL, ONE)
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    with pytest.raises(TApplicationException) as e:
        c.batch_mutate({b'k': {'Standard1': [Mutation(ColumnOrSuperColumn(Column(None, b'v', 1))),
                                             Mutation(ColumnOrSuperColumn(Column(b'ok', b'v', 1)))]},
                        b'k2': {'Standard1': [Mutation(ColumnOrSuperColumn(Column(b'ok', b'v', 1)))]}}, ONE)
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert c.get_slice(b'k2', ColumnParent('Standard1'), ALL, ONE) == []
    c.insert(b'k', ColumnParent('Standard1'), Column(b'a', b'v', 1), ONE)
    assert len(c.get_slice(b'k', ColumnParent('Standard1'), ALL, ONE)) == 1
    c.close()


def test_empty_frame_is_a_quiet_goodbye(start):
    node = start(extra=['-log-level', 'debug'])
    # After calls, as Hector and Astyanax close a connection.
    s = socket.create_connection((node.host, node.port), timeout=10)
    s.sendall(frame(raw_call('describe_version')))
    assert read_framed(s) == (2, 'describe_version')
    s.sendall(b'\x00\x00\x00\x00')
    s.close()
    # On a pooled connection closed unused.
    s = socket.create_connection((node.host, node.port), timeout=10)
    s.sendall(b'\x00\x00\x00\x00')
    s.close()
    deadline = time.monotonic() + 5
    while True:
        records = [json.loads(line) for line in node.log_text().splitlines() if line.startswith('{')]
        closes = [r for r in records if r.get('msg') == 'connection closed']
        if len(closes) >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [(r['level'], r['reason']) for r in closes] == [('DEBUG', 'client closed')] * 2
    assert [r for r in records if r['level'] in ('WARN', 'ERROR')] == []


def test_bad_input_never_disturbs_other_connections(start):
    node = start()
    good = Client(node.host, node.port, keyspace='Keyspace1')
    good.insert(b'g', ColumnParent('Standard1'), Column(b'a', b'v', 1), ONE)
    hostile = [
        frame(raw_call('get_slice', b'\x0b\x00\x01\x00\x00\x03\xe8abc')),  # a string longer than its frame
        struct.pack('>i', 2**31 - 1) + raw_call('get_slice'),               # a 2 GB frame
        b'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
        bytes(range(256)) * 4,
    ]
    for h in hostile:
        s = socket.create_connection((node.host, node.port), timeout=10)
        s.sendall(h)
        try:
            s.recv(1000)
        except OSError:
            pass
        s.close()
        assert [c.column.name for c in good.get_slice(b'g', ColumnParent('Standard1'), ALL, ONE)] == [b'a']
    good.close()
    assert node.proc.poll() is None


def read_reply(sock, framed):
    """One reply on a raw socket: (message type, method name). Only one
    reply is ever in flight, so the buffered reads take no more than it."""
    if framed:
        return read_framed(sock)
    f = sock.makefile('rb')
    head = f.read(8)
    name = f.read(struct.unpack('>i', head[4:8])[0]).decode()
    f.read(4)  # sequence id
    mtype = head[3]
    if mtype == 3:  # EXCEPTION: a TApplicationException struct
        x = TApplicationException()
        x.read(TBinaryProtocol.TBinaryProtocol(TTransport.TFileObjectTransport(f)))
    return mtype, name


WRONG_TYPES = [
    # set_keyspace with an i32 keyspace
    ('set_keyspace', b'\x08\x00\x01\x00\x00\x00\x05\x00'),
    # get_slice with a key of type i64 and a column parent of type string
    ('get_slice', b'\x0a\x00\x01' + struct.pack('>q', 1) + b'\x0b\x00\x02\x00\x00\x00\x01x\x00'),
    # system_add_keyspace with a list where the KsDef belongs
    ('system_add_keyspace', b'\x0f\x00\x01\x0b\x00\x00\x00\x01\x00\x00\x00\x01a\x00'),
]


@pytest.mark.parametrize('framed', [True, False], ids=['framed', 'unframed'])
def test_19x_methods_with_wrong_argument_types(start, framed):
    node = start()
    s = socket.create_connection((node.host, node.port), timeout=10)
    wrap = frame if framed else (lambda m: m)
    for method, args in WRONG_TYPES:
        s.sendall(wrap(raw_call(method, args)))
        assert read_reply(s, framed) == (3, method)
        s.sendall(wrap(raw_call('set_keyspace', b'\x0b\x00\x01\x00\x00\x00\x09Keyspace1\x00')))
        assert read_reply(s, framed) == (2, 'set_keyspace')
    s.close()
