"""Framing and protocol on one port (spec 1 and 16.1, 16.2): framed,
unframed, strict and old unversioned binary messages, method dispatch
errors, and oversized input."""

import socket
import struct
import threading

import pytest
from thrift.Thrift import TApplicationException, TMessageType
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from cassandra.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel,
    KeyRange, Mutation, SlicePredicate, SliceRange, SuperColumn)

from support import i64

ONE = ConsistencyLevel.ONE
KS = 'Keyspace1'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))

VARIANTS = [
    dict(framed=False, strict_write=True),
    dict(framed=True, strict_write=True),
    dict(framed=False, strict_write=False),
    dict(framed=True, strict_write=False),
]
IDS = ['unframed', 'framed', 'unframed-unversioned', 'framed-unversioned']


@pytest.mark.parametrize('variant', VARIANTS, ids=IDS)
def test_every_call_through_each_framing(launcher, node, variant):
    c = launcher.connect(node, **variant)
    assert c.describe_version() == '2.2.0'
    c.insert(KS, 'k', ColumnPath('Standard1', column=b'a'), b'1', 0, ONE)
    c.batch_insert(KS, 'k', {'Super1': [ColumnOrSuperColumn(super_column=SuperColumn(b'sc', [Column(i64(1), b'2', 0)]))]},
                   ONE)
    c.batch_mutate(KS, {'k': {'Standard1': [Mutation(ColumnOrSuperColumn(Column(b'b', b'3', 0)))]}}, ONE)
    assert c.get(KS, 'k', ColumnPath('Standard1', column=b'a'), ONE).column == Column(b'a', b'1', 0)
    assert [r.column.name for r in c.get_slice(KS, 'k', ColumnParent('Standard1'), ALL, ONE)] == [b'a', b'b']
    assert c.get_count(KS, 'k', ColumnParent('Super1'), ONE) == 1
    assert set(c.multiget(KS, ['k', 'z'], ColumnPath('Standard1', column=b'b'), ONE)) == {'k', 'z'}
    assert len(c.multiget_slice(KS, ['k'], ColumnParent('Super1', b'sc'), ALL, ONE)['k']) == 1
    got = c.get_range_slices(KS, ColumnParent('Standard1'), ALL, KeyRange(start_key='', end_key=''), ONE)
    assert [s.key for s in got] == ['k']
    c.remove(KS, 'k', ColumnPath('Standard1'), 1, ONE)
    assert c.get_slice(KS, 'k', ColumnParent('Standard1'), ALL, ONE) == []
    assert 'Keyspace1' in c.describe_keyspaces()


def test_framings_mix_on_one_port(launcher, node):
    clients = [launcher.connect(node, **v) for v in VARIANTS]
    for i, c in enumerate(clients):
        c.insert(KS, 'k', ColumnPath('Standard1', column=b'c%d' % i), b'v', 0, ONE)
    for c in clients:
        assert c.get_count(KS, 'k', ColumnParent('Standard1'), ONE) == len(clients)


def test_connections_work_concurrently(launcher, node):
    errors = []

    def worker(n):
        try:
            c = node.connect(framed=n % 2 == 0)
            try:
                for i in range(50):
                    c.insert(KS, 'row%d' % n, ColumnPath('Standard1', column=b'%03d' % i), b'v', 0, ONE)
                assert c.get_count(KS, 'row%d' % n, ColumnParent('Standard1'), ONE) == 50
            finally:
                c.close()
        except Exception as e:  # reported below, with the worker's number
            errors.append((n, e))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def raw_protocol(node, framed=False):
    sock = TSocket.TSocket(node.host, node.port)
    sock.setTimeout(10000)
    trans = TTransport.TFramedTransport(sock) if framed else TTransport.TBufferedTransport(sock)
    trans.open()
    return TBinaryProtocol.TBinaryProtocol(trans), trans


@pytest.mark.parametrize('framed', [False, True], ids=['unframed', 'framed'])
def test_unknown_method(node, framed):
    proto, trans = raw_protocol(node, framed)
    try:
        proto.writeMessageBegin('no_such_method', TMessageType.CALL, 77)
        proto.writeStructBegin('no_such_method_args')
        proto.writeFieldBegin('keyspace', 11, 1)
        proto.writeString('Keyspace1')
        proto.writeFieldEnd()
        proto.writeFieldStop()
        proto.writeStructEnd()
        proto.writeMessageEnd()
        trans.flush()
        name, mtype, seqid = proto.readMessageBegin()
        assert (name, mtype, seqid) == ('no_such_method', TMessageType.EXCEPTION, 77)
        x = TApplicationException()
        x.read(proto)
        proto.readMessageEnd()
        assert x.type == TApplicationException.UNKNOWN_METHOD
        assert x.message == "Invalid method name: 'no_such_method'"

        # The connection goes on.
        proto.writeMessageBegin('describe_version', TMessageType.CALL, 78)
        proto.writeStructBegin('describe_version_args')
        proto.writeFieldStop()
        proto.writeStructEnd()
        proto.writeMessageEnd()
        trans.flush()
        assert proto.readMessageBegin() == ('describe_version', TMessageType.REPLY, 78)
        proto.readStructBegin()
        _, ftype, fid = proto.readFieldBegin()
        assert (ftype, fid) == (11, 0)
        assert proto.readString() == '2.2.0'
    finally:
        trans.close()


def closed_by_server(sock):
    """Reads until the server closes the connection; False if it is still
    open after the socket's timeout. Whatever the server sent first (an
    error reply, say) is ignored."""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False
        if not data:
            return True


def test_oversized_frame_closes_only_that_connection(launcher, node):
    bystander = launcher.connect(node)
    with socket.create_connection((node.host, node.port), timeout=10) as s:
        s.sendall(struct.pack('>I', 0x7FFFFFF0) + b'\x80\x01\x00\x01')
        assert closed_by_server(s)
    assert bystander.describe_version() == '2.2.0'
    assert launcher.connect(node, framed=True).describe_version() == '2.2.0'


def test_oversized_string_closes_only_that_connection(launcher, node):
    bystander = launcher.connect(node, framed=True)
    header = struct.pack('>I', 0x80010001) + struct.pack('>I', 3) + b'get' + struct.pack('>i', 1)
    field = struct.pack('>bh', 11, 1) + struct.pack('>I', 0x7FFFFFF0) + b'Keyspace1'
    with socket.create_connection((node.host, node.port), timeout=10) as s:
        s.sendall(header + field)
        assert closed_by_server(s)
    assert bystander.describe_version() == '2.2.0'
