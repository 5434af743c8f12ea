"""get_range_slices and get_range_slice (spec 5.7): key and token bounds,
partitioner order, row counts and range ghosts."""

import hashlib

import pytest

from cassandra.ttypes import (
    ColumnParent, ColumnPath, ConsistencyLevel, InvalidRequestException, KeyRange, KeySlice,
    SlicePredicate, SliceRange)

from support import DEFAULT_CONF, derived_config

ONE = ConsistencyLevel.ONE
KS = 'Keyspace1'
STD = ColumnParent('Standard1')


def names(*ns):
    return SlicePredicate(column_names=list(ns))


def span(start=b'', finish=b'', reversed=False, count=100):
    return SlicePredicate(slice_range=SliceRange(start, finish, reversed, count))


def keys_of(slices):
    return [s.key for s in slices]


def insert_keys(client, keys, cf='Standard1', column=None):
    for key in keys:
        name = column if column is not None else key.encode('utf-8')
        client.insert(KS, key, ColumnPath(cf, column=name), b'v', 0, ONE)


def by_keys(client, start, end, count=1000, predicate=None, parent=STD):
    return client.get_range_slices(KS, parent, predicate or span(),
                                   KeyRange(start_key=start, end_key=end, count=count), ONE)


# -- CollatingOrderPreservingPartitioner (the 0.6 system-test configuration) --

COLLATED = ['0', '1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '2', '20', '21', '22',
            '23', '24', '25', '26', '27', '28', '29', '3', '30', '31', '32', '33', '34', '35', '36', '37',
            '38', '39', '4', '40', '41', '42', '43', '44', '45', '46', '47', '48', '49', '5', '50', '51',
            '52', '53', '54', '55', '56', '57', '58', '59', '6', '60', '61', '62', '63', '64', '65', '66',
            '67', '68', '69', '7', '70', '71', '72', '73', '74', '75', '76', '77', '78', '79', '8', '80',
            '81', '82', '83', '84', '85', '86', '87', '88', '89', '9', '90', '91', '92', '93', '94', '95',
            '96', '97', '98', '99', 'a', '-a', 'b', '-b']


@pytest.fixture
def collated(client):
    insert_keys(client, ['-a', '-b', 'a', 'b'] + [str(i) for i in range(100)])
    return client


def test_range_collation(collated):
    # en_US collation: hyphens are ignorable at the first level.
    got = collated.get_range_slice(KS, STD, names(b'-a', b'-a'), '', '', 1000, ONE)
    assert keys_of(got) == COLLATED


def test_range_partial(collated):
    def check(start, end, count, expected):
        got = collated.get_range_slice(KS, STD, names(b'-a'), start, end, count, ONE)
        assert keys_of(got) == expected
        got = by_keys(collated, start, end, count, names(b'-a'))
        assert keys_of(got) == expected

    check('a', '', 1000, ['a', '-a', 'b', '-b'])
    check('', '15', 1000, ['0', '1', '10', '11', '12', '13', '14', '15'])
    check('50', '51', 1000, ['50', '51'])
    check('1', '', 10, ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18'])
    check('50', '50', 1000, ['50'])
    check('x', '', 1000, [])


def test_range_rows_carry_their_columns(collated):
    got = by_keys(collated, '-a', '-b', 10, names(b'-a', b'-b', b'b'))
    assert got[0].key == '-a' and [c.column.name for c in got[0].columns] == [b'-a']
    # 'b' and '-b' lie between; each row has only its own column.
    assert keys_of(got) == ['-a', 'b', '-b']
    assert [[c.column.name for c in s.columns] for s in got] == [[b'-a'], [b'b'], [b'-b']]


def test_empty_range(client):
    assert by_keys(client, '', '', predicate=names(b'c1', b'c1')) == []
    insert_keys(client, ['key1'], column=b'c1')
    # Rows that exist only in another column family are not returned.
    assert by_keys(client, '', '', predicate=names(b'c1'), parent=ColumnParent('Standard2')) == []
    assert client.get_range_slice(KS, ColumnParent('Super1'), names(b'c1', b'c1'), '', '', 1000, ONE) == []


def test_range_with_removed_columns_keeps_a_ghost(client):
    insert_keys(client, ['key1'], column=b'c1')
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c2'), b'v', 0, ONE)
    assert keys_of(client.get_range_slice(KS, STD, names(b'c1'), 'key1', '', 1000, ONE)) == ['key1']
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 1, ONE)
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c2'), 1, ONE)
    got = client.get_range_slice(KS, STD, names(b'c1', b'c2'), '', '', 1000, ONE)
    assert got == [KeySlice(key='key1', columns=[])]


def test_range_with_removed_row_keeps_a_ghost(client):
    insert_keys(client, ['key1'], column=b'c1')
    client.remove(KS, 'key1', ColumnPath('Standard1'), 1, ONE)
    assert by_keys(client, '', '', predicate=names(b'c1')) == [KeySlice(key='key1', columns=[])]
    # A row that was only ever deleted is present in storage too.
    client.remove(KS, 'never', ColumnPath('Standard1'), 1, ONE)
    assert by_keys(client, '', '') == [KeySlice(key='key1', columns=[]), KeySlice(key='never', columns=[])]


def test_ghosts_count_against_the_row_count(client):
    insert_keys(client, ['a', 'b', 'c', 'd'], column=b'x')
    client.remove(KS, 'a', ColumnPath('Standard1'), 1, ONE)
    client.remove(KS, 'b', ColumnPath('Standard1'), 1, ONE)
    got = by_keys(client, '', '', count=3)
    assert [(s.key, len(s.columns)) for s in got] == [('a', 0), ('b', 0), ('c', 1)]
    # Rows without the asked columns are ghosts as well.
    got = by_keys(client, '', '', predicate=names(b'y'))
    assert [(s.key, len(s.columns)) for s in got] == [('a', 0), ('b', 0), ('c', 0), ('d', 0)]


def test_get_range_slice_standard(client):
    for key in ['key1', 'key2', 'key3', 'key4', 'key5']:
        for col in ['col1', 'col2', 'col3', 'col4', 'col5']:
            client.insert(KS, key, ColumnPath('Standard1', column=col.encode()), b'v-' + col.encode(), 0, ONE)
    rs = lambda pred, start, end, count: client.get_range_slice(KS, STD, pred, start, end, count, ONE)  # noqa: E731

    assert rs(names(b'col1', b'col3'), 'key6', '', 1) == []
    got = rs(names(b'a'), 'key2', '', 1)
    assert keys_of(got) == ['key2'] and got[0].columns == []

    got = rs(names(b'col1', b'col3'), 'key2', 'key4', 5)
    assert keys_of(got) == ['key2', 'key3', 'key4']
    assert [c.column.name for c in got[0].columns] == [b'col1', b'col3']
    assert len(rs(names(b'col1', b'col3'), 'key2', 'key4', 1)) == 1

    got = rs(span(b'col2', b'col4', False, 5), 'key1', 'key2', 5)
    assert keys_of(got) == ['key1', 'key2']
    assert [c.column.name for c in got[0].columns] == [b'col2', b'col3', b'col4']
    assert len(rs(span(b'col2', b'col4', False, 2), 'key1', 'key2', 5)[0].columns) == 2
    got = rs(span(b'col4', b'col2', True, 5), 'key1', 'key2', 5)
    assert [c.column.name for c in got[0].columns] == [b'col4', b'col3', b'col2']
    assert len(rs(span(b'col2', b'col4', False, 5), 'key1', 'key2', 1)) == 1

    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'col1'), 1, ONE)
    got = rs(span(b'', b''), 'key1', 'key2', 5)
    assert keys_of(got) == ['key1', 'key2']
    assert got[0].columns[0].column.name == b'col2'
    assert got[1].columns[0].column.name == b'col1'


def test_get_range_slice_super(client):
    for key in ['key1', 'key2', 'key3', 'key4', 'key5']:
        for col in ['col1', 'col2', 'col3', 'col4', 'col5']:
            client.insert('Keyspace2', key, ColumnPath('Super3', b'sc1', col.encode()), b'v-' + col.encode(), 0, ONE)
    got = client.get_range_slice('Keyspace2', ColumnParent('Super3', b'sc1'), names(b'col1', b'col3'),
                                 'key2', 'key4', 5, ONE)
    assert keys_of(got) == ['key2', 'key3', 'key4']
    assert [c.column.name for c in got[0].columns] == [b'col1', b'col3']
    got = client.get_range_slices('Keyspace2', ColumnParent('Super3'), names(b'sc1'),
                                  KeyRange(start_key='key2', end_key='key4', count=5), ONE)
    assert keys_of(got) == ['key2', 'key3', 'key4']
    for row in got:
        assert [sc.super_column.name for sc in row.columns] == [b'sc1']
        assert len(row.columns[0].super_column.columns) == 5


def test_paging_repeats_the_boundary_key(collated):
    seen = []
    start = ''
    while True:
        page = keys_of(by_keys(collated, start, '', count=7, predicate=names(b'x')))
        if seen and page:
            assert page[0] == seen[-1]
            page = page[1:]
        seen.extend(page)
        if len(page) < 6:
            break
        start = seen[-1]
    assert seen == COLLATED


# -- RandomPartitioner (the stock configuration) ------------------------------

def token(key):
    """RandomPartitioner's token: abs of the MD5 read as a signed integer."""
    return abs(int.from_bytes(hashlib.md5(key.encode('utf-8')).digest(), 'big', signed=True))


KEYS = ['k%02d' % i for i in range(30)]
RING = sorted(KEYS, key=token)


@pytest.fixture
def random_client(default_client):
    insert_keys(default_client, KEYS)
    return default_client


def by_tokens(client, start, end, count=1000):
    return keys_of(client.get_range_slices(KS, STD, span(), KeyRange(start_token=start, end_token=end, count=count),
                                           ONE))


def test_random_partitioner_orders_by_md5_token(random_client):
    assert keys_of(by_keys(random_client, '', '')) == RING
    assert keys_of(by_keys(random_client, RING[3], RING[10])) == RING[3:11]
    assert keys_of(by_keys(random_client, RING[3], '', count=4)) == RING[3:7]


def test_token_ranges_exclude_start_include_end(random_client):
    t = [str(token(k)) for k in RING]
    assert by_tokens(random_client, t[3], t[10]) == RING[4:11]
    assert by_tokens(random_client, '0', str(2 ** 127)) == RING
    assert by_tokens(random_client, t[3], t[10], count=2) == RING[4:6]


def test_token_ranges_wrap_around_the_ring(random_client):
    t = [str(token(k)) for k in RING]
    assert by_tokens(random_client, t[20], t[5]) == RING[21:] + RING[:6]
    # start == end is the whole ring, starting just after start.
    assert by_tokens(random_client, t[2], t[2]) == RING[3:] + RING[:3]


def test_token_range_to_the_minimum_token_runs_to_the_end(random_client):
    t = [str(token(k)) for k in RING]
    assert by_tokens(random_client, t[25], '-1') == RING[26:]


def test_key_range_of_one_key(random_client):
    assert keys_of(by_keys(random_client, RING[7], RING[7])) == [RING[7]]
    assert keys_of(by_keys(random_client, 'absent', 'absent')) == []


# -- OrderPreservingPartitioner: Java's String order -------------------------

def java_order(key):
    """Java's String.compareTo compares UTF-16 code units, which is the
    byte order of UTF-16BE: a supplementary character (a surrogate pair)
    sorts before U+E000-U+FFFF, where code point and UTF-8 order put it
    after."""
    return key.encode('utf-16-be')


OPP_KEYS = ['a', 'a😀', 'a\ue000', 'a\uf8ff', 'a\ufffd', 'a\U00010000', 'a\ud7ff', '😀', '\ue000',
            '\uffff', '😀\ue000', '\ue000😀', 'b', 'b💩z', 'b\uf000z', 'é', '中', 'z']
OPP_ORDER = sorted(OPP_KEYS, key=java_order)


@pytest.fixture
def opp_client(launcher, tmp_path):
    conf = derived_config(str(tmp_path), DEFAULT_CONF, 'storage-conf-opp.xml',
                          replace=[('<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>',
                                    '<Partitioner>org.apache.cassandra.dht.OrderPreservingPartitioner</Partitioner>')])
    client = launcher.connect(launcher.start(conf))
    insert_keys(client, OPP_KEYS)
    return client


def test_order_preserving_partitioner_orders_keys_as_java_strings(opp_client):
    assert OPP_ORDER != sorted(OPP_KEYS), 'the keys must order differently as code points'
    assert keys_of(by_keys(opp_client, '', '')) == OPP_ORDER
    # Key bounds follow the same order: a😀 lies between a and a\ue000.
    assert keys_of(by_keys(opp_client, 'a', 'a\ue000')) == ['a', 'a\ud7ff', 'a\U00010000', 'a😀', 'a\ue000']
    with pytest.raises(InvalidRequestException) as e:
        by_keys(opp_client, 'a\ue000', 'a😀')
    assert e.value.why == 'start key must sort before (or equal to) finish key in your partitioner!'


def test_order_preserving_paging_by_start_key(opp_client):
    seen, start = [], ''
    for _ in range(50):
        page = keys_of(by_keys(opp_client, start, '', count=4))
        if seen:
            assert page[0] == start
            page = page[1:]
        seen += page
        if len(page) < 3:
            break
        start = page[-1]
    assert seen == OPP_ORDER


def test_order_preserving_describe_splits(opp_client):
    splits = opp_client.describe_splits('', '', 1)
    assert splits[0] == '' and splits[-1] == ''
    assert splits[1:-1] == OPP_ORDER[:-1]
