"""Reads and writes of the 19.x API as pycassa 1.x applications make them:
set_keyspace, insert/get/get_slice/get_count, multiget, removes,
batch_mutate, super columns, TTL."""

import time

import pytest

from cassandra19.ttypes import (
    AuthenticationRequest, Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel, Deletion,
    InvalidRequestException, Mutation, NotFoundException, SlicePredicate, SliceRange, SuperColumn)

from support19 import ONE, QUORUM, target, timeuuid, unique, wait_until

ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))


def names(cosc_list):
    return [c.column.name for c in cosc_list]


def now():
    return int(time.time() * 1e6)


def put(c, key, cf, name, value, ts=None, ttl=None):
    c.insert(key, ColumnParent(cf), Column(name, value, now() if ts is None else ts, ttl), ONE)


def test_set_keyspace_then_every_call_works_in_it(fresh, ks):
    # pycassa logs in first when given credentials; AllowAllAuthenticator
    # takes any.
    fresh.login(AuthenticationRequest({'username': 'app', 'password': 'secret'}))
    with pytest.raises(InvalidRequestException) as e:
        fresh.get_slice(b'k', ColumnParent('Standard1'), ALL, ONE)
    # thriftd answers in 2.0-2.1's words; the suite's reference target,
    # Cassandra 1.2.19, in its own.
    assert e.value.why == ('no keyspace has been specified' if target() else
                           'No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename')
    with pytest.raises(InvalidRequestException) as e:
        fresh.set_keyspace('NoSuchKeyspace19')
    assert e.value.why == "Keyspace 'NoSuchKeyspace19' does not exist"
    fresh.set_keyspace(ks)
    assert fresh.get_slice(b'k-never-written', ColumnParent('Standard1'), ALL, ONE) == []


def test_insert_get_and_slices(cx):
    key = unique('row').encode()
    for n in (b'b', b'a', b'c', b'd'):
        put(cx, key, 'Standard1', n, b'v-' + n, ts=10)
    got = cx.get(key, ColumnPath('Standard1', column=b'a'), ONE)
    assert got.column == Column(b'a', b'v-a', 10)
    assert got.column.ttl is None
    assert names(cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE)) == [b'a', b'b', b'c', b'd']
    rng = SlicePredicate(slice_range=SliceRange(b'b', b'c', False, 100))
    assert names(cx.get_slice(key, ColumnParent('Standard1'), rng, ONE)) == [b'b', b'c']
    rev = SlicePredicate(slice_range=SliceRange(b'c', b'', True, 2))
    assert names(cx.get_slice(key, ColumnParent('Standard1'), rev, ONE)) == [b'c', b'b']
    byname = SlicePredicate(column_names=[b'd', b'zz', b'a'])
    assert names(cx.get_slice(key, ColumnParent('Standard1'), byname, ONE)) == [b'a', b'd']
    assert cx.get_count(key, ColumnParent('Standard1'), ALL, ONE) == 4
    assert cx.get_count(key, ColumnParent('Standard1'), SlicePredicate(slice_range=SliceRange(b'', b'', False, 3)), ONE) == 3
    with pytest.raises(NotFoundException):
        cx.get(key, ColumnPath('Standard1', column=b'zz'), ONE)
    # A later timestamp wins; an earlier one is ignored.
    put(cx, key, 'Standard1', b'a', b'newer', ts=20)
    put(cx, key, 'Standard1', b'a', b'older', ts=15)
    assert cx.get(key, ColumnPath('Standard1', column=b'a'), ONE).column.value == b'newer'


def test_utf8_and_timeuuid_comparators_order_names(cx):
    key = unique('row').encode()
    for n in ('b', 'é', 'a'):
        put(cx, key, 'Standard2', n.encode('utf-8'), b'v')
    assert [n.decode('utf-8') for n in names(cx.get_slice(key, ColumnParent('Standard2'), ALL, ONE))] == ['a', 'b', 'é']
    ids = [timeuuid() for _ in range(3)]
    for u in reversed(ids):
        put(cx, key, 'StandardByUUID1', u, b'v')
    assert names(cx.get_slice(key, ColumnParent('StandardByUUID1'), ALL, ONE)) == ids


def test_multiget_slice_and_count(cx):
    keys = [unique('mg').encode() for _ in range(3)]
    for i, k in enumerate(keys[:2]):
        for j in range(i + 1):
            put(cx, k, 'Standard1', b'c%d' % j, b'v')
    got = cx.multiget_slice(keys, ColumnParent('Standard1'), ALL, ONE)
    assert set(got) == set(keys)
    assert names(got[keys[0]]) == [b'c0']
    assert names(got[keys[1]]) == [b'c0', b'c1']
    assert got[keys[2]] == []
    assert cx.multiget_count(keys, ColumnParent('Standard1'), ALL, ONE) == {keys[0]: 1, keys[1]: 2, keys[2]: 0}


def test_remove_column_and_row(cx):
    key = unique('rm').encode()
    put(cx, key, 'Standard1', b'a', b'1', ts=10)
    put(cx, key, 'Standard1', b'b', b'2', ts=10)
    cx.remove(key, ColumnPath('Standard1', column=b'a'), 11, ONE)
    assert names(cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE)) == [b'b']
    cx.remove(key, ColumnPath('Standard1'), 11, ONE)
    assert cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE) == []
    # A write older than the row's deletion stays deleted; a newer one lives.
    put(cx, key, 'Standard1', b'c', b'3', ts=5)
    put(cx, key, 'Standard1', b'd', b'4', ts=12)
    assert names(cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE)) == [b'd']


@pytest.mark.parametrize('call', ['batch_mutate', 'atomic_batch_mutate'])
def test_batch_mutate_inserts_and_deletes(cx, call):
    k1, k2 = unique('b').encode(), unique('b').encode()
    put(cx, k2, 'Standard1', b'gone', b'x', ts=1)
    ins = lambda n, v: Mutation(column_or_supercolumn=ColumnOrSuperColumn(column=Column(n, v, 5)))
    mutations = {
        k1: {'Standard1': [ins(b'a', b'1'), ins(b'b', b'2')],
             'Super1': [Mutation(column_or_supercolumn=ColumnOrSuperColumn(
                 super_column=SuperColumn(b'sc', [Column(b's1', b'3', 5)])))]},
        k2: {'Standard1': [Mutation(deletion=Deletion(5, predicate=SlicePredicate(column_names=[b'gone']))),
                           ins(b'new', b'4')]},
    }
    getattr(cx, call)(mutations, QUORUM)
    assert names(cx.get_slice(k1, ColumnParent('Standard1'), ALL, ONE)) == [b'a', b'b']
    assert names(cx.get_slice(k2, ColumnParent('Standard1'), ALL, ONE)) == [b'new']
    sc = cx.get(k1, ColumnPath('Super1', super_column=b'sc'), ONE).super_column
    assert sc == SuperColumn(b'sc', [Column(b's1', b'3', 5)])


def test_batch_mutate_refuses_a_bad_mutation_and_applies_nothing(cx):
    key = unique('b').encode()
    good = Mutation(column_or_supercolumn=ColumnOrSuperColumn(column=Column(b'a', b'1', 5)))
    with pytest.raises(InvalidRequestException) as e:
        cx.batch_mutate({key: {'Standard1': [good], 'NoSuchCF': [good]}}, ONE)
    assert e.value.why == 'unconfigured columnfamily NoSuchCF'
    assert cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE) == []
    with pytest.raises(InvalidRequestException) as e:
        cx.batch_mutate({key: {'Standard1': [good, Mutation()]}}, ONE)
    assert e.value.why == 'mutation must have one and only one of column_or_supercolumn or deletion'
    assert cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE) == []


def test_super_columns(cx):
    key = unique('sc').encode()
    for sc in (b'b', b'a'):
        for n in (b'y', b'x'):
            cx.insert(key, ColumnParent('Super1', sc), Column(n, sc + n, 5), ONE)
    got = cx.get_slice(key, ColumnParent('Super1'), ALL, ONE)
    assert [s.super_column.name for s in got] == [b'a', b'b']
    assert [c.name for c in got[0].super_column.columns] == [b'x', b'y']
    sub = cx.get_slice(key, ColumnParent('Super1', b'b'), ALL, ONE)
    assert names(sub) == [b'x', b'y']
    assert cx.get(key, ColumnPath('Super1', b'a', b'y'), ONE).column.value == b'ay'
    assert cx.get_count(key, ColumnParent('Super1'), ALL, ONE) == 2
    cx.remove(key, ColumnPath('Super1', b'a', b'x'), 6, ONE)
    assert names(cx.get_slice(key, ColumnParent('Super1', b'a'), ALL, ONE)) == [b'y']
    cx.remove(key, ColumnPath('Super1', b'b'), 6, ONE)
    with pytest.raises(NotFoundException):
        cx.get(key, ColumnPath('Super1', b'b'), ONE)
    assert [s.super_column.name for s in cx.get_slice(key, ColumnParent('Super1'), ALL, ONE)] == [b'a']


def test_ttl_expires_columns(cx):
    key = unique('ttl').encode()
    # The TTL is read back from columns that cannot expire before the read,
    # however slow the machine; the expiry is tested with a TTL of 1 s,
    # waited for.
    put(cx, key, 'Standard1', b'long', b'v', ttl=3600)
    got = cx.get(key, ColumnPath('Standard1', column=b'long'), ONE).column
    assert got.ttl == 3600
    put(cx, key, 'Standard1', b'short', b'v', ttl=1)
    wait_until(lambda: names(cx.get_slice(key, ColumnParent('Standard1'), ALL, ONE)) == [b'long'],
               'the column with a TTL of 1 s has not expired')
    with pytest.raises(NotFoundException):
        cx.get(key, ColumnPath('Standard1', column=b'short'), ONE)


def test_truncate_empties_a_column_family(server):
    c = server.connect(server.keyspace)
    try:
        key = unique('tr').encode()
        put(c, key, 'Standard2', b'a', b'v')
        c.truncate('Standard2')
        assert c.get_slice(key, ColumnParent('Standard2'), ALL, ONE) == []
        with pytest.raises(InvalidRequestException) as e:
            c.truncate('NoSuchCF')
        assert e.value.why == 'unconfigured columnfamily NoSuchCF'
    finally:
        c.close()


BAD_INPUT = [
    ('empty key', lambda c: c.insert(b'', ColumnParent('Standard1'), Column(b'a', b'v', 1), ONE),
     'Key may not be empty'),
    ('unknown column family', lambda c: c.insert(b'k', ColumnParent('NoSuchCF'), Column(b'a', b'v', 1), ONE),
     'unconfigured columnfamily NoSuchCF'),
    ('empty column name', lambda c: c.insert(b'k', ColumnParent('Standard1'), Column(b'', b'v', 1), ONE),
     'column name must not be empty'),
    ('no timestamp', lambda c: c.insert(b'k', ColumnParent('Standard1'), Column(b'a', b'v'), ONE),
     'Column timestamp is required'),
    ('ttl 0', lambda c: c.insert(b'k', ColumnParent('Standard1'), Column(b'a', b'v', 1, 0), ONE),
     'ttl must be positive'),
    ('negative ttl', lambda c: c.insert(b'k', ColumnParent('Standard1'), Column(b'a', b'v', 1, -5), ONE),
     'ttl must be positive'),
    pytest.param('bad utf8 name', lambda c: c.insert(b'k', ColumnParent('Standard2'), Column(b'\xff\xfe', b'v', 1), ONE),
                 "String didn't validate.", id='bad utf8 name'),
    ('short timeuuid', lambda c: c.insert(b'k', ColumnParent('StandardByUUID1'), Column(b'abc', b'v', 1), ONE),
     'TimeUUID should be 16 or 0 bytes (3)'),
    ('super column missing', lambda c: c.insert(b'k', ColumnParent('Super1'), Column(b'a', b'v', 1), ONE),
     'missing mandatory super column name for super CF Super1'),
    ('super column on standard', lambda c: c.insert(b'k', ColumnParent('Standard1', b'sc'), Column(b'a', b'v', 1), ONE),
     'columnfamily alone is required for standard CF Standard1'),
    ('range backwards', lambda c: c.get_slice(b'k', ColumnParent('Standard1'),
                                              SlicePredicate(slice_range=SliceRange(b'b', b'a', False, 10)), ONE),
     'range finish must come after start in the order of traversal'),
    ('reversed range backwards', lambda c: c.get_slice(b'k', ColumnParent('Standard1'),
                                                       SlicePredicate(slice_range=SliceRange(b'a', b'b', True, 10)), ONE),
     'range finish must come after start in the order of traversal'),
    ('negative count', lambda c: c.get_slice(b'k', ColumnParent('Standard1'),
                                             SlicePredicate(slice_range=SliceRange(b'', b'', False, -1)), ONE),
     'get_slice requires non-negative count'),
    ('names and range', lambda c: c.get_slice(b'k', ColumnParent('Standard1'),
                                              SlicePredicate([b'a'], SliceRange(b'', b'', False, 1)), ONE),
     'predicate column_names and slice_range may not both be present'),
    ('read at ANY', lambda c: c.get_slice(b'k', ColumnParent('Standard1'), ALL, ConsistencyLevel.ANY),
     'ANY ConsistencyLevel is only supported for writes'),
    ('key too long', lambda c: c.get_slice(b'k' * 65536, ColumnParent('Standard1'), ALL, ONE),
     'Key length of 65536 is longer than maximum of 65535'),
]


@pytest.mark.parametrize('what,call,why', [pytest.param(*b, id=b[0]) if type(b) is tuple else b
                                            for b in BAD_INPUT])
def test_bad_input_gets_the_real_servers_message(cx, what, call, why):
    with pytest.raises(InvalidRequestException) as e:
        call(cx)
    assert e.value.why == why
    # The connection carries on.
    assert cx.describe_version().startswith('19.')
