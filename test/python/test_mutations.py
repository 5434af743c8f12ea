"""Writes and reads through the raw Thrift API, in the scenarios of
Cassandra 0.6's own system tests (spec sections 5.1-5.11), against the 0.6
system-test configuration."""

import pytest

from cassandra.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel,
    Deletion, InvalidRequestException, Mutation, NotFoundException,
    SlicePredicate, SliceRange, SuperColumn)

from support import i64

ONE = ConsistencyLevel.ONE
ZERO = ConsistencyLevel.ZERO
KS = 'Keyspace1'

SIMPLE = [Column(b'c1', b'value1', 0), Column(b'c2', b'value2', 0)]
SUPER = [SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)]),
         SuperColumn(b'sc2', [Column(i64(5), b'value5', 0), Column(i64(6), b'value6', 0)])]


def everything(count=1000, reversed=False):
    return SlicePredicate(slice_range=SliceRange(b'', b'', reversed, count))


def big_slice(client, key, parent, ks=KS):
    return client.get_slice(ks, key, parent, everything(), ONE)


def columns_of(result):
    return [r.column for r in result]


def super_columns_of(result):
    return [r.super_column for r in result]


def insert_simple(client, keys=('key1',), level=ONE):
    for key in keys:
        client.insert(KS, key, ColumnPath('Standard1', column=b'c1'), b'value1', 0, level)
        client.insert(KS, key, ColumnPath('Standard1', column=b'c2'), b'value2', 0, level)


def insert_super(client, key='key1', level=ZERO):
    client.insert(KS, key, ColumnPath('Super1', b'sc1', i64(4)), b'value4', 0, level)
    client.insert(KS, key, ColumnPath('Super1', b'sc2', i64(5)), b'value5', 0, level)
    client.insert(KS, key, ColumnPath('Super1', b'sc2', i64(6)), b'value6', 0, level)


def verify_simple(client, key='key1'):
    got = client.get(KS, key, ColumnPath('Standard1', column=b'c1'), ONE).column
    assert got == Column(b'c1', b'value1', 0)
    assert columns_of(big_slice(client, key, ColumnParent('Standard1'))) == SIMPLE


def verify_super(client, cf='Super1', key='key1'):
    got = client.get(KS, key, ColumnPath(cf, b'sc1', i64(4)), ONE).column
    assert got == Column(i64(4), b'value4', 0)
    assert super_columns_of(big_slice(client, key, ColumnParent(cf))) == SUPER


def assert_missing(client, key, path, ks=KS):
    with pytest.raises(NotFoundException):
        client.get(ks, key, path, ONE)


def test_insert_at_zero_is_visible_on_return(client):
    # thriftd applies ZERO writes before replying (spec 16.4): no sleep.
    insert_simple(client, level=ZERO)
    verify_simple(client)


def test_insert_blocking(client):
    insert_simple(client)
    verify_simple(client)


def test_empty_slices(client):
    assert big_slice(client, 'key1', ColumnParent('Standard2')) == []
    assert big_slice(client, 'key1', ColumnParent('Super1')) == []
    assert big_slice(client, 'key1', ColumnParent('Super1', b'sc1')) == []


def test_missing_super_column(client):
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc1', i64(1)))
    insert_super(client)
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc1', i64(1)))
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc9'))


def test_get_count(client):
    insert_simple(client)
    insert_super(client)
    assert client.get_count(KS, 'key1', ColumnParent('Standard2'), ONE) == 0
    assert client.get_count(KS, 'key1', ColumnParent('Standard1'), ONE) == 2
    assert client.get_count(KS, 'key1', ColumnParent('Super1', b'sc2'), ONE) == 2
    assert client.get_count(KS, 'key1', ColumnParent('Super1'), ONE) == 2
    assert client.get_count(KS, 'nokey', ColumnParent('Super1'), ONE) == 0


def test_get_count_ignores_deleted(client):
    insert_simple(client)
    insert_super(client)
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 1, ONE)
    client.remove(KS, 'key1', ColumnPath('Super1', b'sc1', i64(4)), 1, ONE)
    assert client.get_count(KS, 'key1', ColumnParent('Standard1'), ONE) == 1
    # sc1 has no live subcolumn left, so it no longer counts.
    assert client.get_count(KS, 'key1', ColumnParent('Super1'), ONE) == 1
    assert client.get_count(KS, 'key1', ColumnParent('Super1', b'sc1'), ONE) == 0


def test_super_insert(client):
    insert_super(client)
    verify_super(client)


def test_super_get_returns_whole_super_column(client):
    insert_super(client)
    got = client.get(KS, 'key1', ColumnPath('Super1', b'sc2'), ONE)
    assert got.column is None
    assert got.super_column == SUPER[1]


def test_super_subcolumn_limit(client):
    insert_super(client)
    parent = ColumnParent('Super1', b'sc2')
    got = client.get_slice(KS, 'key1', parent, everything(count=1), ONE)
    assert columns_of(got) == [Column(i64(5), b'value5', 0)]
    got = client.get_slice(KS, 'key1', parent, everything(count=1, reversed=True), ONE)
    assert columns_of(got) == [Column(i64(6), b'value6', 0)]


def test_long_remove_and_resurrect(client):
    parent = ColumnParent('StandardLong1')
    first = SlicePredicate(slice_range=SliceRange(b'', b'', False, 1))
    for i in range(10):
        path = ColumnPath('StandardLong1', column=i64(i))
        client.insert(KS, 'key1', path, b'value1', 10 * i, ONE)
        client.remove(KS, 'key1', ColumnPath('StandardLong1'), 10 * i + 1, ONE)
        assert client.get_slice(KS, 'key1', parent, first, ONE) == []
        client.insert(KS, 'key1', path, b'value2', 10 * i + 2, ONE)
        got = columns_of(client.get_slice(KS, 'key1', parent, first, ONE))
        assert got == [Column(i64(i), b'value2', 10 * i + 2)], i


@pytest.mark.parametrize('level', [ZERO, ONE])
def test_batch_insert(client, level):
    cfmap = {'Standard1': [ColumnOrSuperColumn(c) for c in SIMPLE],
             'Standard2': [ColumnOrSuperColumn(c) for c in SIMPLE]}
    client.batch_insert(KS, 'key1', cfmap, level)
    verify_simple(client)
    assert columns_of(big_slice(client, 'key1', ColumnParent('Standard2'))) == SIMPLE


@pytest.mark.parametrize('level', [ZERO, ONE])
def test_batch_insert_super(client, level):
    cfmap = {'Super1': [ColumnOrSuperColumn(super_column=c) for c in SUPER],
             'Super2': [ColumnOrSuperColumn(super_column=c) for c in SUPER]}
    client.batch_insert(KS, 'key1', cfmap, level)
    verify_super(client, 'Super1')
    verify_super(client, 'Super2')


def test_batch_insert_merges_into_existing_super_column(client):
    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(9)), b'value9', 0, ONE)
    client.batch_insert(KS, 'key1', {'Super1': [ColumnOrSuperColumn(super_column=SUPER[1])]}, ONE)
    got = client.get(KS, 'key1', ColumnPath('Super1', b'sc2'), ONE).super_column
    assert got.columns == SUPER[1].columns + [Column(i64(9), b'value9', 0)]


@pytest.mark.parametrize('level', [ZERO, ONE])
def test_batch_mutate_standard_columns(client, level):
    keys = ['key_%d' % i for i in range(27, 32)]
    mutations = [Mutation(ColumnOrSuperColumn(c)) for c in SIMPLE]
    rows = {key: {'Standard1': mutations, 'Standard2': mutations} for key in keys}
    client.batch_mutate(KS, rows, level)
    for cf in ('Standard1', 'Standard2'):
        for key in keys:
            assert columns_of(big_slice(client, key, ColumnParent(cf))) == SIMPLE


def test_batch_mutate_remove_standard_columns(client):
    keys = ['key_%d' % i for i in range(11, 21)]
    insert_simple(client, keys)
    for key in keys:
        client.insert(KS, key, ColumnPath('Standard2', column=b'c1'), b'value1', 0, ONE)
    mutations = [Mutation(deletion=Deletion(20, predicate=SlicePredicate(column_names=[c.name])))
                 for c in SIMPLE]
    rows = {key: {'Standard1': mutations, 'Standard2': mutations} for key in keys}
    client.batch_mutate(KS, rows, ONE)
    for cf in ('Standard1', 'Standard2'):
        for key in keys:
            for c in SIMPLE:
                assert_missing(client, key, ColumnPath(cf, column=c.name))


def test_batch_mutate_deletion_without_predicate_deletes_the_row(client):
    # A Deletion with neither super_column nor predicate is a row delete
    # (accepted since 0.6.3, spec 5.11).
    insert_simple(client, ['key_33'])
    client.insert(KS, 'key_33', ColumnPath('Standard2', column=b'c1'), b'other', 0, ONE)
    client.batch_mutate(KS, {'key_33': {'Standard1': [Mutation(deletion=Deletion(2))]}}, ONE)
    assert big_slice(client, 'key_33', ColumnParent('Standard1')) == []
    # Only that column family of that row is deleted.
    assert columns_of(big_slice(client, 'key_33', ColumnParent('Standard2'))) == \
        [Column(b'c1', b'other', 0)]
    # Later writes come back.
    client.insert(KS, 'key_33', ColumnPath('Standard1', column=b'c3'), b'v', 3, ONE)
    assert columns_of(big_slice(client, 'key_33', ColumnParent('Standard1'))) == \
        [Column(b'c3', b'v', 3)]


def test_batch_mutate_remove_subcolumns(client):
    keys = ['key_%d' % i for i in range(11, 15)]
    for key in keys:
        insert_super(client, key, ONE)
    mutations = [Mutation(deletion=Deletion(20, super_column=sc.name,
                                            predicate=SlicePredicate(column_names=[c.name for c in sc.columns])))
                 for sc in SUPER]
    client.batch_mutate(KS, {key: {'Super1': mutations} for key in keys}, ONE)
    for key in keys:
        for sc in SUPER:
            for c in sc.columns:
                assert_missing(client, key, ColumnPath('Super1', sc.name, c.name))
            assert_missing(client, key, ColumnPath('Super1', sc.name))


def test_batch_mutate_remove_super_columns_with_none_given_underneath(client):
    keys = ['key_%d' % i for i in range(17, 21)]
    for key in keys:
        insert_super(client, key, ONE)
    mutations = [Mutation(deletion=Deletion(20, super_column=sc.name)) for sc in SUPER]
    for key in keys:
        for sc in SUPER:
            client.get(KS, key, ColumnPath('Super1', sc.name), ONE)
    client.batch_mutate(KS, {key: {'Super1': mutations} for key in keys}, ZERO)
    for key in keys:
        for sc in SUPER:
            assert_missing(client, key, ColumnPath('Super1', sc.name))


def test_batch_mutate_names_without_super_column_delete_super_columns(client):
    insert_super(client, 'key1', ONE)
    deletion = Deletion(20, predicate=SlicePredicate(column_names=[b'sc1']))
    client.batch_mutate(KS, {'key1': {'Super1': [Mutation(deletion=deletion)]}}, ONE)
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == [SUPER[1]]


def test_batch_mutate_insertions_and_deletions(client):
    first_insert = SuperColumn(b'sc1', [Column(i64(20), b'value20', 3), Column(i64(21), b'value21', 3)])
    second_insert = SuperColumn(b'sc1', [Column(i64(20), b'value20', 3), Column(i64(21), b'value21', 3)])
    keys = ['key_30', 'key_31']
    for key in keys:
        sc = SuperColumn(b'sc1', [Column(i64(22), b'value22', 0), Column(i64(23), b'value23', 0)])
        client.batch_insert(KS, key, {'Super1': [ColumnOrSuperColumn(super_column=sc)]}, ONE)
        sc2 = SuperColumn(b'sc2', [Column(i64(22), b'value22', 0), Column(i64(23), b'value23', 0)])
        client.batch_insert(KS, key, {'Super2': [ColumnOrSuperColumn(super_column=sc2)]}, ONE)
    names = SlicePredicate(column_names=[i64(22), i64(23)])
    rows = {key: {
        'Super1': [Mutation(ColumnOrSuperColumn(super_column=first_insert)),
                   Mutation(deletion=Deletion(3, super_column=b'sc1', predicate=names))],
        'Super2': [Mutation(deletion=Deletion(2, super_column=b'sc2', predicate=names)),
                   Mutation(ColumnOrSuperColumn(super_column=second_insert))],
    } for key in keys}
    client.batch_mutate(KS, rows, ONE)
    for key in keys:
        for name in (i64(22), i64(23)):
            assert_missing(client, key, ColumnPath('Super1', b'sc1', name))
            assert_missing(client, key, ColumnPath('Super2', b'sc2', name))
        for name in (i64(20), i64(21)):
            client.get(KS, key, ColumnPath('Super1', b'sc1', name), ONE)
            client.get(KS, key, ColumnPath('Super2', b'sc1', name), ONE)


def test_batch_mutate_tombstone_wins_a_timestamp_tie(client):
    # Inside one row mutation, order does not matter; at equal timestamps
    # the deletion wins (spec 5.11).
    col = ColumnOrSuperColumn(column=Column(b'c1', b'v', 5))
    delete = Deletion(5, predicate=SlicePredicate(column_names=[b'c1']))
    client.batch_mutate(KS, {'k': {'Standard1': [Mutation(col), Mutation(deletion=delete)]}}, ONE)
    client.batch_mutate(KS, {'j': {'Standard1': [Mutation(deletion=delete), Mutation(col)]}}, ONE)
    assert_missing(client, 'k', ColumnPath('Standard1', column=b'c1'))
    assert_missing(client, 'j', ColumnPath('Standard1', column=b'c1'))


def test_batch_mutate_applies_nothing_when_one_row_is_invalid(client):
    good = [Mutation(ColumnOrSuperColumn(Column(b'c1', b'v', 0)))]
    bad = [Mutation(ColumnOrSuperColumn(Column(b'', b'v', 0)))]
    with pytest.raises(InvalidRequestException) as e:
        client.batch_mutate(KS, {'a': {'Standard1': good}, 'b': {'Standard1': bad},
                                 'c': {'Standard1': good}}, ONE)
    assert e.value.why == 'column name must not be empty'
    assert_missing(client, 'a', ColumnPath('Standard1', column=b'c1'))
    assert_missing(client, 'c', ColumnPath('Standard1', column=b'c1'))


def test_column_name_lengths(client):
    for n in (1, 127, 128, 129, 255, 256, 257, 2 ** 16 - 1):
        client.insert(KS, 'key1', ColumnPath('Standard1', column=b'x' * n), b'value', 0, ONE)
    with pytest.raises(InvalidRequestException) as e:
        client.insert(KS, 'key1', ColumnPath('Standard1', column=b'x' * 2 ** 16), b'value', 0, ONE)
    assert e.value.why == 'column name length must not be greater than 65535'
    got = client.get(KS, 'key1', ColumnPath('Standard1', column=b'x' * (2 ** 16 - 1)), ONE)
    assert got.column.name == b'x' * (2 ** 16 - 1)


def test_remove_column(client):
    insert_simple(client)
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 1, ONE)
    assert_missing(client, 'key1', ColumnPath('Standard1', column=b'c1'))
    assert client.get(KS, 'key1', ColumnPath('Standard1', column=b'c2'), ONE).column == \
        Column(b'c2', b'value2', 0)
    assert big_slice(client, 'key1', ColumnParent('Standard1')) == \
        [ColumnOrSuperColumn(column=Column(b'c2', b'value2', 0))]

    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c3'), b'value3', 0, ONE)
    assert columns_of(big_slice(client, 'key1', ColumnParent('Standard1'))) == \
        [Column(b'c2', b'value2', 0), Column(b'c3', b'value3', 0)]

    # An older write stays deleted, a newer one comes back.
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'value1', 0, ONE)
    assert columns_of(big_slice(client, 'key1', ColumnParent('Standard1'))) == \
        [Column(b'c2', b'value2', 0), Column(b'c3', b'value3', 0)]
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'value1', 2, ONE)
    assert columns_of(big_slice(client, 'key1', ColumnParent('Standard1'))) == \
        [Column(b'c1', b'value1', 2), Column(b'c2', b'value2', 0), Column(b'c3', b'value3', 0)]


def test_remove_at_equal_timestamp_stays_deleted(client):
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 7, ONE)
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'v', 7, ONE)
    assert_missing(client, 'key1', ColumnPath('Standard1', column=b'c1'))
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'v', 8, ONE)
    assert client.get(KS, 'key1', ColumnPath('Standard1', column=b'c1'), ONE).column == \
        Column(b'c1', b'v', 8)


def test_remove_row_of_one_column_family(client):
    insert_simple(client)
    insert_super(client)
    client.remove(KS, 'key1', ColumnPath('Standard1'), 3, ONE)
    assert big_slice(client, 'key1', ColumnParent('Standard1')) == []
    verify_super(client)

    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'value1', 0, ONE)
    assert big_slice(client, 'key1', ColumnParent('Standard1')) == []
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'value1', 4, ONE)
    assert big_slice(client, 'key1', ColumnParent('Standard1')) == \
        [ColumnOrSuperColumn(column=Column(b'c1', b'value1', 4))]

    client.remove(KS, 'key1', ColumnPath('Super1'), 3, ONE)
    assert big_slice(client, 'key1', ColumnParent('Super1')) == []
    assert big_slice(client, 'key1', ColumnParent('Super1', b'sc1')) == []


def test_remove_subcolumn(client):
    insert_simple(client)
    insert_super(client)
    client.remove(KS, 'key1', ColumnPath('Super1', b'sc2', i64(5)), 5, ONE)
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc2', i64(5)))
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == [
        SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)]),
        SuperColumn(b'sc2', [Column(i64(6), b'value6', 0)])]
    verify_simple(client)

    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(7)), b'value7', 0, ONE)
    expected = [SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)]),
                SuperColumn(b'sc2', [Column(i64(6), b'value6', 0), Column(i64(7), b'value7', 0)])]
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == expected

    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(5)), b'value5', 0, ONE)
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == expected

    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(5)), b'value5', 6, ONE)
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == [
        SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)]),
        SuperColumn(b'sc2', [Column(i64(5), b'value5', 6), Column(i64(6), b'value6', 0),
                             Column(i64(7), b'value7', 0)])]


def test_remove_super_column(client):
    insert_simple(client)
    insert_super(client)
    client.remove(KS, 'key1', ColumnPath('Super1', b'sc2'), 5, ONE)
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc2', i64(5)))
    assert_missing(client, 'key1', ColumnPath('Super1', b'sc2'))
    assert big_slice(client, 'key1', ColumnParent('Super1', b'sc2')) == []
    expected = [SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)])]
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == expected
    verify_simple(client)

    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(5)), b'value5', 1, ONE)
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == expected

    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(5)), b'value5', 6, ONE)
    assert super_columns_of(big_slice(client, 'key1', ColumnParent('Super1'))) == [
        SuperColumn(b'sc1', [Column(i64(4), b'value4', 0)]),
        SuperColumn(b'sc2', [Column(i64(5), b'value5', 6)])]
    assert columns_of(big_slice(client, 'key1', ColumnParent('Super1', b'sc2'))) == \
        [Column(i64(5), b'value5', 6)]


def test_resurrect_subcolumn_after_super_column_delete(client):
    client.insert(KS, 'vijay', ColumnPath('Super1', b'sc1', i64(4)), b'value4', 0, ONE)
    client.remove(KS, 'vijay', ColumnPath('Super1', b'sc1'), 1, ONE)
    client.insert(KS, 'vijay', ColumnPath('Super1', b'sc1', i64(4)), b'value4', 2, ONE)
    got = client.get(KS, 'vijay', ColumnPath('Super1', b'sc1'), ONE).super_column
    assert got == SuperColumn(b'sc1', [Column(i64(4), b'value4', 2)])


def test_remove_of_missing_data_still_shadows_older_writes(client):
    client.remove(KS, 'ghost', ColumnPath('Standard1'), 10, ONE)
    client.insert(KS, 'ghost', ColumnPath('Standard1', column=b'c1'), b'old', 9, ONE)
    assert_missing(client, 'ghost', ColumnPath('Standard1', column=b'c1'))
    client.insert(KS, 'ghost', ColumnPath('Standard1', column=b'c1'), b'new', 11, ONE)
    assert client.get(KS, 'ghost', ColumnPath('Standard1', column=b'c1'), ONE).column.value == b'new'


def test_reconciliation(client):
    path = ColumnPath('Standard1', column=b'c')
    client.insert(KS, 'r', path, b'first', 10, ONE)
    client.insert(KS, 'r', path, b'older', 9, ONE)
    assert client.get(KS, 'r', path, ONE).column == Column(b'c', b'first', 10)
    # Equal timestamps: the greater value wins, whatever the order of arrival.
    client.insert(KS, 'r', path, b'a', 20, ONE)
    client.insert(KS, 'r', path, b'b', 20, ONE)
    client.insert(KS, 'r', path, b'ab', 20, ONE)
    assert client.get(KS, 'r', path, ONE).column == Column(b'c', b'b', 20)
    client.insert(KS, 's', path, b'b', 20, ONE)
    client.insert(KS, 's', path, b'a', 20, ONE)
    assert client.get(KS, 's', path, ONE).column == Column(b'c', b'b', 20)
    # Byte order is unsigned, and a strict prefix is smaller.
    client.insert(KS, 't', path, b'\x7f', 1, ONE)
    client.insert(KS, 't', path, b'\x80', 1, ONE)
    client.insert(KS, 't', path, b'\x80\x00', 1, ONE)
    assert client.get(KS, 't', path, ONE).column == Column(b'c', b'\x80\x00', 1)


def test_negative_and_extreme_timestamps(client):
    path = ColumnPath('Standard1', column=b'c')
    client.insert(KS, 'n', path, b'neg', -5, ONE)
    assert client.get(KS, 'n', path, ONE).column == Column(b'c', b'neg', -5)
    client.insert(KS, 'n', path, b'max', 2 ** 63 - 1, ONE)
    assert client.get(KS, 'n', path, ONE).column == Column(b'c', b'max', 2 ** 63 - 1)
    client.remove(KS, 'n', path, 2 ** 63 - 1, ONE)
    assert_missing(client, 'n', path)


def test_timestamp_long_min_value_is_invisible(client):
    # 0.6 marks "not deleted" with Long.MIN_VALUE, so a column written at
    # exactly -2^63 is always shadowed (spec 5.1).
    path = ColumnPath('Standard1', column=b'c')
    client.insert(KS, 'm', path, b'v', -2 ** 63, ONE)
    assert_missing(client, 'm', path)
    client.insert(KS, 'm', path, b'v', -2 ** 63 + 1, ONE)
    assert client.get(KS, 'm', path, ONE).column == Column(b'c', b'v', -2 ** 63 + 1)


def test_values_may_be_empty_or_large(client):
    big = bytes(range(256)) * 4096  # 1 MiB
    client.insert(KS, 'v', ColumnPath('Standard1', column=b'empty'), b'', 0, ONE)
    client.insert(KS, 'v', ColumnPath('Standard1', column=b'big'), big, 0, ONE)
    assert client.get(KS, 'v', ColumnPath('Standard1', column=b'empty'), ONE).column.value == b''
    assert client.get(KS, 'v', ColumnPath('Standard1', column=b'big'), ONE).column.value == big


def test_keys_are_unicode_strings(client):
    for key in ('é', '日本', '😀', 'a b', 'x' * 65535):
        client.insert(KS, key, ColumnPath('Standard1', column=b'c'), key.encode('utf-8'), 0, ONE)
        assert client.get(KS, key, ColumnPath('Standard1', column=b'c'), ONE).column.value == \
            key.encode('utf-8')


def test_get_slice_range(client):
    for i in (1, 2, 3):
        client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c%d' % i), b'value%d' % i, 0, ONE)
    parent = ColumnParent('Standard1')

    def names(start, finish, reversed, count):
        p = SlicePredicate(slice_range=SliceRange(start, finish, reversed, count))
        return [r.column.name for r in client.get_slice(KS, 'key1', parent, p, ONE)]

    assert names(b'c1', b'c2', False, 1000) == [b'c1', b'c2']
    assert names(b'c3', b'c2', True, 1000) == [b'c3', b'c2']
    assert names(b'a', b'z', False, 1000) == [b'c1', b'c2', b'c3']
    assert names(b'a', b'z', False, 2) == [b'c1', b'c2']
    assert names(b'', b'', True, 1000) == [b'c3', b'c2', b'c1']
    assert names(b'c2', b'', False, 1000) == [b'c2', b'c3']
    assert names(b'c2', b'', True, 1000) == [b'c2', b'c1']
    assert names(b'', b'c2', True, 1000) == [b'c3', b'c2']
    assert names(b'c1', b'c1', False, 1000) == [b'c1']
    assert names(b'', b'', False, 0) == []


def test_slice_count_skips_deleted_columns(client):
    for i in range(1, 6):
        client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c%d' % i), b'v', 0, ONE)
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 1, ONE)
    client.remove(KS, 'key1', ColumnPath('Standard1', column=b'c2'), 1, ONE)
    got = client.get_slice(KS, 'key1', ColumnParent('Standard1'), everything(count=2), ONE)
    assert [r.column.name for r in got] == [b'c3', b'c4']


def test_get_slice_super_range(client):
    for sc, n in ((b'sc1', 4), (b'sc2', 5), (b'sc2', 6), (b'sc3', 7)):
        client.insert(KS, 'key1', ColumnPath('Super1', sc, i64(n)), b'value%d' % n, 0, ONE)
    parent = ColumnParent('Super1')
    p = SlicePredicate(slice_range=SliceRange(b'sc2', b'sc3', False, 2))
    got = super_columns_of(client.get_slice(KS, 'key1', parent, p, ONE))
    assert [sc.name for sc in got] == [b'sc2', b'sc3']
    p = SlicePredicate(slice_range=SliceRange(b'sc3', b'sc2', True, 2))
    got = super_columns_of(client.get_slice(KS, 'key1', parent, p, ONE))
    assert [sc.name for sc in got] == [b'sc3', b'sc2']


def test_reversed_super_slice_keeps_subcolumns_ascending(client):
    insert_super(client)
    got = client.get_slice(KS, 'key1', ColumnParent('Super1'), everything(reversed=True), ONE)
    assert super_columns_of(got) == [SUPER[1], SUPER[0]]


def test_super_slice_count_limits_super_columns_not_subcolumns(client):
    for n in range(10):
        client.insert(KS, 'key1', ColumnPath('Super1', b'sc1', i64(n)), b'v', 0, ONE)
    client.insert(KS, 'key1', ColumnPath('Super1', b'sc2', i64(0)), b'v', 0, ONE)
    got = super_columns_of(client.get_slice(KS, 'key1', ColumnParent('Super1'), everything(count=1), ONE))
    assert [sc.name for sc in got] == [b'sc1']
    assert [c.name for c in got[0].columns] == [i64(n) for n in range(10)]


def test_get_slice_by_names(client):
    for i in (1, 2, 3):
        client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c%d' % i), b'value%d' % i, 0, ONE)
    p = SlicePredicate(column_names=[b'c2', b'c1', b'nope', b'c2'])
    got = client.get_slice(KS, 'key1', ColumnParent('Standard1'), p, ONE)
    # Comparator order, duplicates collapsed, missing names absent.
    assert [r.column.name for r in got] == [b'c1', b'c2']

    insert_super(client)
    p = SlicePredicate(column_names=[i64(4)])
    got = client.get_slice(KS, 'key1', ColumnParent('Super1', b'sc1'), p, ONE)
    assert columns_of(got) == [Column(i64(4), b'value4', 0)]
    p = SlicePredicate(column_names=[b'sc2', b'sc0'])
    got = client.get_slice(KS, 'key1', ColumnParent('Super1'), p, ONE)
    assert super_columns_of(got) == [SUPER[1]]


def test_multiget(client):
    keys = ['key%d' % i for i in range(1, 11)]
    insert_simple(client, keys)
    rows = client.multiget(KS, keys + ['missing', 'key1'], ColumnPath('Standard1', column=b'c1'), ONE)
    assert set(rows) == set(keys) | {'missing'}
    for key in keys:
        assert rows[key] == ColumnOrSuperColumn(column=Column(b'c1', b'value1', 0))
    # A key with nothing found maps to an empty ColumnOrSuperColumn.
    assert rows['missing'] == ColumnOrSuperColumn()
    assert client.multiget(KS, [], ColumnPath('Standard1', column=b'c1'), ONE) == {}


def test_multiget_super_column(client):
    insert_super(client, 'a', ONE)
    rows = client.multiget(KS, ['a', 'b'], ColumnPath('Super1', b'sc2'), ONE)
    assert rows == {'a': ColumnOrSuperColumn(super_column=SUPER[1]), 'b': ColumnOrSuperColumn()}


def test_multiget_slice(client):
    keys = ['key%d' % i for i in range(1, 11)]
    insert_simple(client, keys)
    rows = client.multiget_slice(KS, keys + ['missing'], ColumnParent('Standard1'), everything(), ONE)
    assert set(rows) == set(keys) | {'missing'}
    for key in keys:
        assert rows[key] == [ColumnOrSuperColumn(c) for c in SIMPLE]
    assert rows['missing'] == []
    assert client.multiget_slice(KS, [], ColumnParent('Standard1'), everything(), ONE) == {}


def test_multiget_slice_super(client):
    insert_super(client, 'a', ONE)
    rows = client.multiget_slice(KS, ['a', 'b'], ColumnParent('Super1', b'sc2'), everything(), ONE)
    assert rows == {'a': [ColumnOrSuperColumn(c) for c in SUPER[1].columns], 'b': []}


def test_timestamp_left_out_is_zero(client):
    # Required primitive fields are not checked by 0.6: a missing
    # timestamp silently becomes 0 (spec 1).
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c'), b'v', None, ONE)
    assert client.get(KS, 'key1', ColumnPath('Standard1', column=b'c'), ONE).column == Column(b'c', b'v', 0)


def test_consistency_level_left_out_is_one(client):
    client.insert(KS, 'key1', ColumnPath('Standard1', column=b'c'), b'v', 1, None)
    got = client.get(KS, 'key1', ColumnPath('Standard1', column=b'c'), None)
    assert got.column == Column(b'c', b'v', 1)
    assert client.get_slice(KS, 'key1', ColumnParent('Standard1'), everything(), None) == [got]


@pytest.mark.parametrize('level', [ConsistencyLevel.ONE, ConsistencyLevel.QUORUM,
                                   ConsistencyLevel.DCQUORUM, ConsistencyLevel.DCQUORUMSYNC,
                                   ConsistencyLevel.ALL])
def test_every_read_level_is_satisfied_with_replication_factor_5(client, level):
    # Keyspace3 has ReplicationFactor 5; thriftd holds every replica, so no
    # level raises UnavailableException (spec 16.4).
    ks = 'Keyspace3'
    client.insert(ks, 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, level)
    assert client.get(ks, 'k', ColumnPath('Standard1', column=b'c'), level).column.value == b'v'
    assert len(client.get_slice(ks, 'k', ColumnParent('Standard1'), everything(), level)) == 1
    assert client.get_count(ks, 'k', ColumnParent('Standard1'), level) == 1
    assert set(client.multiget(ks, ['k'], ColumnPath('Standard1', column=b'c'), level)) == {'k'}
    assert len(client.multiget_slice(ks, ['k'], ColumnParent('Standard1'), everything(), level)['k']) == 1
    assert [s.key for s in client.get_range_slice(ks, ColumnParent('Standard1'), everything(),
                                                  '', '', 10, level)] == ['k']


@pytest.mark.parametrize('level', [ConsistencyLevel.ZERO, ConsistencyLevel.ANY,
                                   ConsistencyLevel.QUORUM, ConsistencyLevel.ALL])
def test_every_write_level_is_accepted(client, level):
    ks = 'Keyspace4'  # ReplicationFactor 3
    client.insert(ks, 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, level)
    client.batch_insert(ks, 'k', {'Standard1': [ColumnOrSuperColumn(Column(b'd', b'w', 0))]}, level)
    client.batch_mutate(ks, {'k': {'Standard1': [Mutation(ColumnOrSuperColumn(Column(b'e', b'x', 0)))]}},
                        level)
    assert [c.name for c in columns_of(client.get_slice(ks, 'k', ColumnParent('Standard1'),
                                                        everything(), ONE))] == [b'c', b'd', b'e']
    client.remove(ks, 'k', ColumnPath('Standard1'), 1, level)
    assert client.get_slice(ks, 'k', ColumnParent('Standard1'), everything(), ONE) == []
