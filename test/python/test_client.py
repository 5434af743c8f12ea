"""The pycassa-style client in clients/python/thriftd against a real
thriftd."""

import collections
import datetime
import socket
import struct
import time
import uuid

import pytest
from thrift.Thrift import TApplicationException

import thriftd
from cassandra.ttypes import ColumnParent, ColumnPath, SlicePredicate, SliceRange

from support import ACCESS, PASSWD, TEST_CONF, with_authenticator

ONE = thriftd.ConsistencyLevel.ONE


@pytest.fixture
def conn(node):
    with thriftd.connect(node.host, node.port, timeout=10) as c:
        yield c


@pytest.fixture
def default_conn(default_node):
    with thriftd.connect('%s:%d' % (default_node.host, default_node.port), framed=True) as c:
        yield c


def raw_column(conn, ks, cf, key, name):
    return conn.get(ks, key, ColumnPath(cf, column=name), ONE).column


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


# -- connect --------------------------------------------------------------------

@pytest.mark.parametrize('framed', [False, True])
def test_connect_framed_or_not(node, framed):
    with thriftd.connect(node.host, node.port, framed=framed) as c:
        assert c.describe_version() == '2.2.0'
        assert c.framed == framed


def test_connect_tries_servers_in_order(node):
    dead = '127.0.0.1:%d' % free_port()
    with thriftd.connect([dead, node.addr]) as c:
        assert c.port == node.port
    with pytest.raises(Exception):
        thriftd.connect([dead])


def test_connect_logs_in(launcher, tmp_path):
    config = with_authenticator(str(tmp_path), TEST_CONF)
    node = launcher.start(config, extra=['-passwd', PASSWD, '-access', ACCESS])
    creds = {'username': 'alice', 'password': 'wonderland7'}
    with thriftd.connect(node.host, node.port, logins={'Keyspace1': creds}) as c:
        cf = thriftd.ColumnFamily(c, 'Keyspace1', 'Standard1')
        cf.insert('k', {'a': 'b'})
        assert cf.get('k') == {b'a': b'b'}
    with thriftd.connect(node.host, node.port) as c:
        cf = thriftd.ColumnFamily(c, 'Keyspace1', 'Standard1')
        with pytest.raises(thriftd.InvalidRequestException) as e:
            cf.get('k')
        assert e.value.why == 'Login is required before any other API calls'
        with pytest.raises(thriftd.AuthenticationException):
            c.login('Keyspace1', {'username': 'alice', 'password': 'nope'})
        c.login('Keyspace1', creds)
        assert cf.get('k') == {b'a': b'b'}


def test_timeout_applies_to_calls():
    with socket.socket() as silent:
        silent.bind(('127.0.0.1', 0))
        silent.listen(1)  # accepts connections, never answers
        c = thriftd.connect('127.0.0.1', silent.getsockname()[1], timeout=0.3)
        started = time.monotonic()
        with pytest.raises(Exception):
            c.describe_version()
        assert time.monotonic() - started < 5
        c.close()


# -- ColumnFamily ------------------------------------------------------------------

def test_unknown_column_family(conn):
    with pytest.raises(thriftd.InvalidRequestException) as e:
        thriftd.ColumnFamily(conn, 'Keyspace1', 'Nope')
    assert e.value.why == 'unconfigured columnfamily Nope'
    with pytest.raises(thriftd.NotFoundException):
        thriftd.ColumnFamily(conn, 'Nope', 'Standard1')


def test_schema_is_read_from_the_server(conn):
    std = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    sup = thriftd.ColumnFamily(conn, 'Keyspace1', 'Super1')
    assert (std.super, std.comparator) == (False, 'BytesType')
    assert (sup.super, sup.comparator, sup.subcomparator) == (True, 'BytesType', 'LongType')


def test_insert_and_get(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    before = time.time_ns() // 1000
    ts = cf.insert('jsmith', {'first': 'John', 'last': 'Smith', b'raw': b'\x00\xff'})
    after = time.time_ns() // 1000
    assert before <= ts <= after  # microseconds
    assert cf.get('jsmith') == {b'first': b'John', b'last': b'Smith', b'raw': b'\x00\xff'}
    assert list(cf.get('jsmith')) == [b'first', b'last', b'raw']
    assert raw_column(conn, 'Keyspace1', 'Standard1', 'jsmith', b'first').timestamp == ts
    assert cf.get('jsmith', columns=['last', 'nope']) == {b'last': b'Smith'}
    assert cf.get('jsmith', column_start='l') == {b'last': b'Smith', b'raw': b'\x00\xff'}
    assert cf.get('jsmith', column_finish='last') == {b'first': b'John', b'last': b'Smith'}
    assert list(cf.get('jsmith', column_reversed=True)) == [b'raw', b'last', b'first']
    assert cf.get('jsmith', column_count=1) == {b'first': b'John'}
    assert cf.get('jsmith', columns=['first'], include_timestamp=True) == {b'first': (b'John', ts)}
    with pytest.raises(thriftd.NotFoundException):
        cf.get('nobody')
    with pytest.raises(thriftd.NotFoundException):
        cf.get('jsmith', columns=['nope'])


def test_explicit_timestamps_and_custom_clock(conn):
    ticks = iter([100, 200, 300])
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1', timestamp=lambda: next(ticks))
    assert cf.insert('k', {'a': '1'}) == 100
    assert cf.insert('k', {'a': 'older'}, timestamp=50) == 50
    assert cf.get('k', include_timestamp=True) == {b'a': (b'1', 100)}
    assert cf.remove('k', ['a']) == 200
    with pytest.raises(thriftd.NotFoundException):
        cf.get('k')


def test_names_follow_comparators(default_conn):
    utf8 = thriftd.ColumnFamily(default_conn, 'Keyspace1', 'Standard2')
    utf8.insert('k', {'é': 'accent', 'a': 'plain', '日本': 'japan'})
    assert utf8.get('k') == {'a': b'plain', 'é': b'accent', '日本': b'japan'}

    by_uuid = thriftd.ColumnFamily(default_conn, 'Keyspace1', 'StandardByUUID1')
    ids = [uuid.uuid1() for _ in range(5)]
    for i in reversed(range(5)):
        by_uuid.insert('k', {ids[i]: str(i)})
    assert list(by_uuid.get('k')) == ids
    assert list(by_uuid.get('k', column_reversed=True, column_count=2)) == [ids[4], ids[3]]
    assert list(by_uuid.get('k', column_start=ids[1], column_finish=str(ids[3]))) == ids[1:4]

    raw = thriftd.ColumnFamily(default_conn, 'Keyspace1', 'Standard2', autopack_names=False)
    assert list(raw.get('k')) == [b'a', 'é'.encode(), '日本'.encode()]


def test_long_names(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'StandardLong1')
    cf.insert('k', {5: 'five', -5: 'minus five', 0: 'zero', 2 ** 40: 'big', -2 ** 63: 'min'})
    assert list(cf.get('k')) == [-2 ** 63, -5, 0, 5, 2 ** 40]
    assert cf.get('k', column_start=-5, column_finish=5) == {-5: b'minus five', 0: b'zero', 5: b'five'}
    assert raw_column(conn, 'Keyspace1', 'StandardLong1', 'k', struct.pack('>q', -5)).value == b'minus five'
    with pytest.raises(TypeError):
        cf.insert('k', {1.5: 'y'})


def test_super_column_family(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Super1')
    cf.insert('k', {'sc2': {2: 'b', 1: 'a'}, 'sc1': {10: 'x'}})
    assert cf.get('k') == {b'sc1': {10: b'x'}, b'sc2': {1: b'a', 2: b'b'}}
    assert list(cf.get('k')) == [b'sc1', b'sc2']
    assert cf.get('k', super_column='sc2') == {1: b'a', 2: b'b'}
    assert cf.get('k', super_column='sc2', columns=[2]) == {2: b'b'}
    assert cf.get('k', super_column='sc2', column_reversed=True, column_count=1) == {2: b'b'}
    assert cf.get('k', columns=['sc2']) == {b'sc2': {1: b'a', 2: b'b'}}
    assert cf.get_count('k') == 2
    assert cf.get_count('k', super_column='sc2') == 2
    cf.remove('k', [1], super_column='sc2')
    assert cf.get('k', super_column='sc2') == {2: b'b'}
    cf.remove('k', super_column='sc1')
    assert cf.get('k') == {b'sc2': {2: b'b'}}
    cf.insert('k', {'sc3': {7: 'z'}})
    cf.remove('k', ['sc3'])
    assert cf.get('k') == {b'sc2': {2: b'b'}}
    cf.remove('k')
    with pytest.raises(thriftd.NotFoundException):
        cf.get('k')
    assert cf.get_count('k') == 0


def test_multiget(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1', dict_class=collections.OrderedDict)
    for key in ('a', 'b', 'c'):
        cf.insert(key, {'name': key})
    rows = cf.multiget(['c', 'missing', 'a', 'c'])
    assert isinstance(rows, collections.OrderedDict)
    assert list(rows.items()) == [('c', {b'name': b'c'}), ('a', {b'name': b'a'})]
    assert cf.multiget([]) == {}
    assert cf.multiget(['a', 'b'], columns=['nope']) == {}


def test_remove_row_and_columns(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    cf.insert('k', {'a': '1', 'b': '2', 'c': '3'})
    cf.remove('k', ['a', 'c'])
    assert cf.get('k') == {b'b': b'2'}
    cf.remove('k')
    with pytest.raises(thriftd.NotFoundException):
        cf.get('k')
    assert cf.get_count('k') == 0


def test_get_range_pages_without_repeating_keys(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    keys = ['key%02d' % i for i in range(23)]
    for key in keys:
        cf.insert(key, {'c': key})
    for size in (2, 3, 5, 22, 23, 24, 1000):
        rows = list(cf.get_range(buffer_size=size))
        assert [k for k, _ in rows] == keys, size
        assert all(cols == {b'c': k.encode()} for k, cols in rows)
    assert [k for k, _ in cf.get_range(start='key05', finish='key09', buffer_size=2)] == keys[5:10]
    assert [k for k, _ in cf.get_range(row_count=7, buffer_size=3)] == keys[:7]
    assert [k for k, _ in cf.get_range(start='key20', row_count=7)] == keys[20:]
    with pytest.raises(ValueError):
        list(cf.get_range(buffer_size=1))


def test_get_range_skips_ghosts_unless_asked(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    for i in range(10):
        cf.insert('key%d' % i, {'c': 'v', 'd': 'w'})
    for i in range(0, 10, 2):
        cf.remove('key%d' % i)
    cf.insert('only-d', {'d': 'x'})
    assert [k for k, _ in cf.get_range(buffer_size=2)] == ['key1', 'key3', 'key5', 'key7', 'key9', 'only-d']
    assert [k for k, _ in cf.get_range(columns=['c'], buffer_size=3)] == ['key1', 'key3', 'key5', 'key7', 'key9']
    everything = list(cf.get_range(buffer_size=2, filter_empty=False))
    assert [k for k, _ in everything] == ['key%d' % i for i in range(10)] + ['only-d']
    assert [cols for k, cols in everything if k == 'key0'] == [{}]
    # row_count counts the rows given back, not the ghosts skipped.
    assert [k for k, _ in cf.get_range(row_count=2, buffer_size=2)] == ['key1', 'key3']


def test_get_range_of_a_super_column(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Super1')
    for key in ('a', 'b', 'c'):
        cf.insert(key, {'sc': {1: key}, 'other': {2: 'x'}})
    assert list(cf.get_range(super_column='sc')) == [('a', {1: b'a'}), ('b', {1: b'b'}), ('c', {1: b'c'})]
    assert list(cf.get_range(columns=['other'], row_count=1)) == [('a', {b'other': {2: b'x'}})]


def test_batch(conn):
    std = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    sup = thriftd.ColumnFamily(conn, 'Keyspace1', 'Super1')
    other = thriftd.ColumnFamily(conn, 'Keyspace2', 'Standard1')
    std.insert('gone', {'a': '1'})
    with thriftd.Mutator(conn) as b:
        b.insert(std, 'k', {'a': '1'})
        b.insert(sup, 'k', {'sc': {1: 'one'}})
        b.insert(other, 'k', {'z': '26'})
        b.remove(std, 'gone')
        assert std.get_count('k') == 0  # nothing sent yet
    assert std.get('k') == {b'a': b'1'}
    assert sup.get('k') == {b'sc': {1: b'one'}}
    assert other.get('k') == {b'z': b'26'}
    with pytest.raises(thriftd.NotFoundException):
        std.get('gone')


def test_column_family_batch_sends_on_queue_size_and_not_on_error(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    b = cf.batch(queue_size=3)
    b.insert('a', {'x': '1'})
    b.insert('b', {'x': '1'})
    assert cf.multiget(['a', 'b']) == {}
    b.insert('c', {'x': '1'})
    assert list(cf.multiget(['a', 'b', 'c'])) == ['a', 'b', 'c']
    b.remove('a', ['x'])
    b.send()
    assert list(cf.multiget(['a', 'b', 'c'])) == ['b', 'c']

    with pytest.raises(RuntimeError):
        with cf.batch() as b:
            b.insert('d', {'x': '1'})
            raise RuntimeError('stop')
    assert cf.multiget(['d']) == {}


def test_consistency_level_per_call(conn):
    cf = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1')
    cf.insert('k', {'a': '1'}, write_consistency_level=thriftd.ConsistencyLevel.ZERO)
    assert cf.get('k', read_consistency_level=thriftd.ConsistencyLevel.QUORUM) == {b'a': b'1'}
    with pytest.raises(thriftd.InvalidRequestException) as e:
        cf.get('k', read_consistency_level=thriftd.ConsistencyLevel.ZERO)
    assert e.value.why == 'Consistency level zero may not be applied to read operations'
    with pytest.raises(thriftd.InvalidRequestException) as e:
        cf.multiget(['k'], read_consistency_level=thriftd.ConsistencyLevel.ANY)
    assert e.value.why == 'Consistency level any may not be applied to read operations'
    with pytest.raises(thriftd.InvalidRequestException):
        cf.get_count('k', read_consistency_level=thriftd.ConsistencyLevel.ZERO)
    with pytest.raises(thriftd.InvalidRequestException):
        list(cf.get_range(read_consistency_level=thriftd.ConsistencyLevel.ZERO))
    # An unknown level reaches the server and is refused there.
    with pytest.raises((thriftd.InvalidRequestException, TApplicationException)):
        cf.insert('k', {'a': '2'}, write_consistency_level=42)
    with pytest.raises((thriftd.InvalidRequestException, TApplicationException)):
        cf.remove('k', write_consistency_level=42)
    # Defaults come from the column family.
    zero = thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1',
                                read_consistency_level=thriftd.ConsistencyLevel.ZERO)
    with pytest.raises(thriftd.InvalidRequestException):
        zero.get('k')


def test_raw_api_is_reachable_through_the_client(conn):
    thriftd.ColumnFamily(conn, 'Keyspace1', 'Standard1').insert('k', {'a': '1'})
    p = SlicePredicate(slice_range=SliceRange(b'', b'', False, 10))
    got = conn.get_slice('Keyspace1', 'k', ColumnParent('Standard1'), p, ONE)
    assert [r.column.name for r in got] == [b'a']


# -- helpers ----------------------------------------------------------------------

def test_long_helpers():
    for n in (0, 1, -1, 2 ** 63 - 1, -2 ** 63):
        packed = thriftd.pack_long(n)
        assert len(packed) == 8 and packed == struct.pack('>q', n)
        assert thriftd.unpack_long(packed) == n
    with pytest.raises(struct.error):
        thriftd.pack_long(2 ** 63)


def test_time_uuid_helpers():
    t = 1262304000.25  # 2010-01-01 00:00:00.25 UTC
    low = thriftd.convert_time_to_uuid(t)
    high = thriftd.convert_time_to_uuid(t, lowest_val=False)
    rand = thriftd.convert_time_to_uuid(t, randomize=True)
    for u in (low, high, rand):
        assert u.bytes[6] >> 4 == 1  # the version nibble TimeUUIDType checks
        assert thriftd.convert_uuid_to_time(u) == pytest.approx(t, abs=1e-6)
        assert thriftd.convert_uuid_to_time(u.bytes) == pytest.approx(t, abs=1e-6)
    assert low.bytes < rand.bytes < high.bytes
    as_datetime = thriftd.convert_time_to_uuid(datetime.datetime(2010, 1, 1, 0, 0, 0, 250000))
    assert as_datetime == low
    ids = [thriftd.time_uuid() for _ in range(100)]
    assert [u.time for u in ids] == sorted(u.time for u in ids)
    assert abs(thriftd.convert_uuid_to_time(ids[0]) - time.time()) < 60


def test_time_uuid_bounds_select_by_time(default_conn):
    cf = thriftd.ColumnFamily(default_conn, 'Keyspace1', 'StandardByUUID1')
    base = 1262304000
    for minute in range(10):
        for _ in range(3):
            cf.insert('k', {thriftd.convert_time_to_uuid(base + 60 * minute, randomize=True): str(minute)})
    got = cf.get('k', column_start=thriftd.convert_time_to_uuid(base + 120),
                 column_finish=thriftd.convert_time_to_uuid(base + 240, lowest_val=False), column_count=100)
    assert sorted(got.values()) == [b'2'] * 3 + [b'3'] * 3 + [b'4'] * 3
    times = [thriftd.convert_uuid_to_time(u) for u in got]
    assert times == sorted(times)
