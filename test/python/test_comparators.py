"""The six 0.6 comparators (spec section 6): ordering, reversed slices,
bounds and validation messages, for column names and subcolumn names.

The expected orders are computed here from the spec's definitions, not
read back from the server."""

import random
import struct
import uuid

import pytest

from cassandra.ttypes import (
    ColumnParent, ColumnPath, ConsistencyLevel, InvalidRequestException,
    SlicePredicate, SliceRange)

from support import TEST_CONF, derived_config, i64

ONE = ConsistencyLevel.ONE
MARSHAL = 'org.apache.cassandra.db.marshal.'

# Column families the fixtures lack (AsciiType, LexicalUUIDType, a fully
# qualified comparator name), added to a copy of the test configuration.
EXTRA_CFS = '''
       <ColumnFamily CompareWith="AsciiType" Name="StandardAscii"/>
       <ColumnFamily CompareWith="LexicalUUIDType" Name="StandardLexicalUUID"/>
       <ColumnFamily CompareWith="TimeUUIDType" Name="StandardTimeUUID"/>
       <ColumnFamily CompareWith="org.apache.cassandra.db.marshal.UTF8Type" Name="StandardUTF8"/>
       <ColumnFamily ColumnType="Super" CompareWith="LongType" CompareSubcolumnsWith="LexicalUUIDType" Name="SuperLong"/>'''


@pytest.fixture
def cmp_client(launcher, tmp_path):
    config = derived_config(str(tmp_path), TEST_CONF, 'comparators.xml', insert_after=[
        ('<ColumnFamily ColumnType="Super" CompareSubcolumnsWith="UTF8Type" Name="Super4"/>', EXTRA_CFS)])
    return launcher.connect(launcher.start(config))


def all_names(client, ks, key, parent, reversed=False, start=b'', finish=b'', count=10000):
    p = SlicePredicate(slice_range=SliceRange(start, finish, reversed, count))
    return [r.column.name for r in client.get_slice(ks, key, parent, p, ONE)]


def write_shuffled(client, ks, cf, names, super_column=None, seed=1):
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    for n in shuffled:
        client.insert(ks, 'key', ColumnPath(cf, super_column, n), b'v', 0, ONE)


def signed64(b):
    return struct.unpack('>q', b)[0]


def lexical_uuid_key(b):
    # java.util.UUID.compareTo: most then least significant halves, signed.
    return (signed64(b[:8]), signed64(b[8:]))


def time_uuid_key(b):
    # The 60-bit time (low nibble of byte 6, byte 7, bytes 4-5, bytes 0-3),
    # then all 16 bytes unsigned.
    t = ((b[6] & 0x0F) << 56) | (b[7] << 48) | (b[4] << 40) | (b[5] << 32) | \
        (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
    return (t, b)


def time_uuid(t, tail=b'\x80\x00\x00\x00\x00\x00\x00\x00'):
    """The version 1 UUID bytes with 60-bit time t and the given last 8 bytes."""
    head = struct.pack('>IHH', t & 0xFFFFFFFF, (t >> 32) & 0xFFFF, ((t >> 48) & 0x0FFF) | 0x1000)
    return head + tail


BYTES_NAMES = [b'\x00', b'\x00\x00', b'\x01', b'\x7f', b'\x80', b'\xff', b'\xff\x00', b'a', b'ab', b'b', b'B']
LONG_NAMES = [i64(n) for n in (-2 ** 63, -2 ** 32, -256, -1, 0, 1, 255, 256, 2 ** 32, 2 ** 63 - 1)]
UTF8_NAMES = [s.encode('utf-8') for s in ('A', 'Z', 'a', 'z', '~', 'é', 'ß', 'Ω', '€', '日本', '\uffff', '😀', 'a😀')]
LEXICAL_NAMES = [bytes.fromhex(h) for h in (
    '80000000000000000000000000000000', 'ffffffffffffffffffffffffffffffff',
    '00000000000000000000000000000000', '00000000000000008000000000000000',
    '0000000000000000ffffffffffffffff', '00000000000000007fffffffffffffff',
    '7fffffffffffffff0000000000000000', '12345678123412341234123456789abc')]
TIME_NAMES = [
    time_uuid(0x00000000FFFFFFFF),                     # starts with ff bytes, early time
    time_uuid(0x0000000100000000),                     # starts with 00 bytes, later
    time_uuid(0x0FFF000000000000),
    time_uuid(0x0001000000000000),
    time_uuid(0x0000000100000000, b'\x80\x00\x00\x00\x00\x00\x00\x01'),  # same time, greater bytes
    time_uuid(0x0000000100000000, b'\x00' * 8),
    time_uuid(12345),
]

CASES = [
    # keyspace, column family, names, sort key
    ('Keyspace1', 'Standard1', BYTES_NAMES, None),
    ('Keyspace1', 'StandardAscii', BYTES_NAMES, None),
    ('Keyspace1', 'StandardLong1', LONG_NAMES, signed64),
    ('Keyspace1', 'StandardUTF8', UTF8_NAMES, lambda b: b.decode('utf-8')),
    ('Keyspace1', 'StandardLexicalUUID', LEXICAL_NAMES, lexical_uuid_key),
    ('Keyspace1', 'StandardTimeUUID', TIME_NAMES, time_uuid_key),
]


@pytest.mark.parametrize('ks,cf,names,key', CASES, ids=[c[1] for c in CASES])
def test_standard_order(cmp_client, ks, cf, names, key):
    write_shuffled(cmp_client, ks, cf, names)
    expected = sorted(names, key=key)
    assert all_names(cmp_client, ks, 'key', ColumnParent(cf)) == expected
    assert all_names(cmp_client, ks, 'key', ColumnParent(cf), reversed=True) == expected[::-1]
    # Inclusive bounds in both directions.
    assert all_names(cmp_client, ks, 'key', ColumnParent(cf), start=expected[1], finish=expected[-2]) == \
        expected[1:-1]
    assert all_names(cmp_client, ks, 'key', ColumnParent(cf), reversed=True,
                     start=expected[-2], finish=expected[1]) == expected[-2:0:-1]
    assert all_names(cmp_client, ks, 'key', ColumnParent(cf), start=expected[2], count=2) == expected[2:4]
    # By names: comparator order whatever the order asked.
    p = SlicePredicate(column_names=[expected[3], expected[0], expected[2]])
    got = [r.column.name for r in cmp_client.get_slice(ks, 'key', ColumnParent(cf), p, ONE)]
    assert got == [expected[0], expected[2], expected[3]]


SUB_CASES = [
    ('Keyspace1', 'Super1', LONG_NAMES, signed64),
    ('Keyspace1', 'Super4', UTF8_NAMES, lambda b: b.decode('utf-8')),
    ('Keyspace1', 'SuperLong', LEXICAL_NAMES, lexical_uuid_key),
    ('Keyspace2', 'Super4', TIME_NAMES, time_uuid_key),
    ('Keyspace2', 'Super3', BYTES_NAMES, None),
]


@pytest.mark.parametrize('ks,cf,names,key', SUB_CASES, ids=['%s.%s' % c[:2] for c in SUB_CASES])
def test_subcolumn_order(cmp_client, ks, cf, names, key):
    sc = i64(7) if cf == 'SuperLong' else b'sc1'
    write_shuffled(cmp_client, ks, cf, names, super_column=sc)
    expected = sorted(names, key=key)
    parent = ColumnParent(cf, sc)
    assert all_names(cmp_client, ks, 'key', parent) == expected
    assert all_names(cmp_client, ks, 'key', parent, reversed=True) == expected[::-1]
    got = cmp_client.get(ks, 'key', ColumnPath(cf, sc), ONE).super_column
    assert [c.name for c in got.columns] == expected


def test_super_column_names_follow_the_column_family_comparator(cmp_client):
    write = [-3, 10, -2 ** 63, 0, 2 ** 40]
    sub = bytes.fromhex('00000000000000000000000000000001')
    for n in write:
        cmp_client.insert('Keyspace1', 'key', ColumnPath('SuperLong', i64(n), sub), b'v', 0, ONE)
    p = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
    got = cmp_client.get_slice('Keyspace1', 'key', ColumnParent('SuperLong'), p, ONE)
    assert [signed64(r.super_column.name) for r in got] == sorted(write)
    p = SlicePredicate(slice_range=SliceRange(i64(-5), i64(5), False, 100))
    got = cmp_client.get_slice('Keyspace1', 'key', ColumnParent('SuperLong'), p, ONE)
    assert [signed64(r.super_column.name) for r in got] == [-3, 0]


def test_negative_long_names_come_before_positive(client):
    for n in (5, -5, 0, -1, 1):
        client.insert('Keyspace1', 'key', ColumnPath('StandardLong1', column=i64(n)), b'v', 0, ONE)
    names = all_names(client, 'Keyspace1', 'key', ColumnParent('StandardLong1'))
    assert [signed64(b) for b in names] == [-5, -1, 0, 1, 5]
    names = all_names(client, 'Keyspace1', 'key', ColumnParent('StandardLong1'), start=i64(-1), finish=i64(1))
    assert [signed64(b) for b in names] == [-1, 0, 1]


def test_long_order_across_a_wide_range(client):
    expected = [i64(n) for n in range(0, 104294967296, 429496729)]
    for name in expected:
        client.insert('Keyspace1', 'key1', ColumnPath('StandardLong1', column=name), b'v', 0, ONE)
    assert all_names(client, 'Keyspace1', 'key1', ColumnParent('StandardLong1')) == expected


def test_time_uuids_from_uuid1_in_time_order(client):
    uuids = []
    parent = ColumnParent('Super4', b'sc1')
    for i in range(500):
        uuids.append(uuid.uuid1())
        client.insert('Keyspace2', 'key1', ColumnPath('Super4', b'sc1', uuids[-1].bytes),
                      b'value%d' % i, i, ONE)
    p = SlicePredicate(slice_range=SliceRange(b'', b'', False, 1000))
    got = client.get_slice('Keyspace2', 'key1', parent, p, ONE)
    assert [r.column.name for r in got] == [u.bytes for u in uuids]
    assert [r.column.value for r in got] == [b'value%d' % i for i in range(500)]

    def names(start, finish, reversed, count):
        p = SlicePredicate(slice_range=SliceRange(start, finish, reversed, count))
        return [r.column.name for r in client.get_slice('Keyspace2', 'key1', parent, p, ONE)]

    assert names(b'', b'', True, 1) == [uuids[-1].bytes]
    assert names(b'', uuids[2].bytes, False, 1000) == [u.bytes for u in uuids[:3]]
    assert names(uuids[2].bytes, b'', True, 1000) == [u.bytes for u in uuids[2::-1]]
    assert names(uuids[2].bytes, b'', False, 1) == [uuids[2].bytes]


def test_time_uuid_column_names_in_the_stock_configuration(default_client):
    uuids = [uuid.uuid1() for _ in range(50)]
    for u in reversed(uuids):
        default_client.insert('Keyspace1', 'k', ColumnPath('StandardByUUID1', column=u.bytes), b'v', 0, ONE)
    assert all_names(default_client, 'Keyspace1', 'k', ColumnParent('StandardByUUID1')) == [u.bytes for u in uuids]


INVALID_NAMES = [
    ('StandardLong1', b'\x00' * 7, 'A long is exactly 8 bytes'),
    ('StandardLong1', b'\x00' * 9, 'A long is exactly 8 bytes'),
    ('StandardLexicalUUID', b'\x00' * 15, 'UUIDs must be exactly 16 bytes'),
    ('StandardLexicalUUID', b'\x00' * 17, 'UUIDs must be exactly 16 bytes'),
    ('StandardTimeUUID', b'\x00' * 15, 'TimeUUID should be 16 or 0 bytes (15)'),
    ('StandardTimeUUID', b'\x00' * 17, 'TimeUUID should be 16 or 0 bytes (17)'),
    ('StandardTimeUUID', uuid.UUID('12345678-1234-4234-8234-123456789abc').bytes, 'Invalid version for TimeUUID type.'),
    ('StandardTimeUUID', b'\x00' * 16, 'Invalid version for TimeUUID type.'),
    ('StandardUTF8', b'\xc3\x28', 'invalid UTF8 bytes [-61, 40]'),
    ('StandardUTF8', b'ok\xff', 'invalid UTF8 bytes [111, 107, -1]'),
    ('StandardUTF8', b'\xc0\xaf', 'invalid UTF8 bytes [-64, -81]'),
]


@pytest.mark.parametrize('cf,name,message', INVALID_NAMES)
def test_invalid_names(cmp_client, cf, name, message):
    with pytest.raises(InvalidRequestException) as e:
        cmp_client.insert('Keyspace1', 'k', ColumnPath(cf, column=name), b'v', 0, ONE)
    assert e.value.why == message
    with pytest.raises(InvalidRequestException) as e:
        cmp_client.get_slice('Keyspace1', 'k', ColumnParent(cf),
                             SlicePredicate(slice_range=SliceRange(name, b'', False, 10)), ONE)
    assert e.value.why == message


@pytest.mark.parametrize('cf', ['Standard1', 'StandardAscii'])
def test_bytes_and_ascii_accept_any_bytes(cmp_client, cf):
    name = bytes(range(256))
    cmp_client.insert('Keyspace1', 'k', ColumnPath(cf, column=name), b'v', 0, ONE)
    assert all_names(cmp_client, 'Keyspace1', 'k', ColumnParent(cf)) == [name]


def test_time_uuid_with_other_version_nibbles_is_checked_on_byte_6(cmp_client):
    # Only the high nibble of byte 6 holds the version.
    good = bytearray(uuid.uuid1().bytes)
    good[6] = 0x1F
    cmp_client.insert('Keyspace1', 'k', ColumnPath('StandardTimeUUID', column=bytes(good)), b'v', 0, ONE)
    bad = bytearray(good)
    bad[6] = 0x2F
    with pytest.raises(InvalidRequestException) as e:
        cmp_client.insert('Keyspace1', 'k', ColumnPath('StandardTimeUUID', column=bytes(bad)), b'v', 0, ONE)
    assert e.value.why == 'Invalid version for TimeUUID type.'


def test_describe_keyspace_reports_fully_qualified_comparators(cmp_client):
    ks = cmp_client.describe_keyspace('Keyspace1')
    assert ks['StandardAscii']['CompareWith'] == MARSHAL + 'AsciiType'
    assert ks['StandardLexicalUUID']['CompareWith'] == MARSHAL + 'LexicalUUIDType'
    assert ks['StandardUTF8']['CompareWith'] == MARSHAL + 'UTF8Type'
    assert ks['SuperLong']['CompareSubcolumnsWith'] == MARSHAL + 'LexicalUUIDType'
