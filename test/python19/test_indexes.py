"""KEYS secondary indexes as pycassa 1.x uses them (ColumnFamily.get_indexed_slices
with create_index_clause and create_index_expression, SystemManager.create_index):
a family created with an indexed ColumnDef, an index added later with
system_update_column_family to a family that already holds rows, EQ with GT
and LT clauses, paging by start_key, count, get_range_slices with row_filter,
and deletions and updates seen by the next query."""

import time

import pytest

from cassandra19.ttypes import (
    CfDef, Column, ColumnDef, ColumnOrSuperColumn, ColumnParent, ColumnPath, IndexClause, IndexExpression, IndexOperator,
    IndexType, InvalidRequestException, KeyRange, KsDef, Mutation, SlicePredicate, SliceRange)

from support19 import ONE, i64

SIMPLE = 'org.apache.cassandra.locator.SimpleStrategy'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
USERS = ColumnParent('Users')
STATES = [b'CA', b'NY', b'TX']


def users_def(ks, indexed=True):
    meta = [ColumnDef(b'age', 'LongType')]
    if indexed:
        meta.append(ColumnDef(b'state', 'UTF8Type', IndexType.KEYS, 'users_state'))
    return CfDef(ks, 'Users', comparator_type='UTF8Type', column_metadata=meta)


def load(c, n=30):
    """n users u00.. with state STATES[i % 3] and age i, as pycassa's
    ColumnFamily.insert writes a row: one batch_mutate per row."""
    for i in range(n):
        cols = [Column(b'state', STATES[i % 3], 1), Column(b'age', i64(i), 1), Column(b'name', b'user %d' % i, 1)]
        c.batch_mutate({b'u%02d' % i: {'Users': [Mutation(column_or_supercolumn=ColumnOrSuperColumn(column=x))
                                                for x in cols]}}, ONE)


def eq(name, value):
    return IndexExpression(name, IndexOperator.EQ, value)


def keys(slices):
    return [s.key for s in slices]


def users(ages):
    return sorted(b'u%02d' % a for a in ages)


def indexed(c, exprs, start=b'', count=100, pred=ALL):
    return c.get_indexed_slices(USERS, IndexClause(exprs, start, count), pred, ONE)


def make(c, ks, cf):
    c.system_add_keyspace(KsDef(ks, SIMPLE, {'replication_factor': '1'}, cf_defs=[cf]))
    c.set_keyspace(ks)


def test_family_created_with_an_index(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks))
    cf = [d for d in c.describe_keyspace(new_ks).cf_defs if d.name == 'Users'][0]
    meta = {m.name: m for m in cf.column_metadata}
    assert meta[b'state'].index_type == IndexType.KEYS and meta[b'state'].index_name == 'users_state'
    assert meta[b'age'].index_type is None
    load(c)

    ny = indexed(c, [eq(b'state', b'NY')])
    assert sorted(keys(ny)) == users(range(1, 30, 3))
    # Every matching row comes whole, in the partitioner's order (the same
    # order as a range scan of the family).
    scan = [k for k in keys(c.get_range_slices(USERS, ALL, KeyRange(start_key=b'', end_key=b'', count=100), ONE))
            if k in set(keys(ny))]
    assert keys(ny) == scan
    row = [s for s in ny if s.key == b'u04'][0]
    assert [(x.column.name, x.column.value) for x in row.columns] == [
        (b'age', i64(4)), (b'name', b'user 4'), (b'state', b'NY')]

    # EQ on the index, GT and LT on a LongType column, compared as numbers.
    got = indexed(c, [eq(b'state', b'NY'), IndexExpression(b'age', IndexOperator.GT, i64(10)),
                      IndexExpression(b'age', IndexOperator.LT, i64(25))])
    assert sorted(keys(got)) == users([13, 16, 19, 22])
    got = indexed(c, [eq(b'state', b'TX'), IndexExpression(b'age', IndexOperator.GTE, i64(20)),
                      IndexExpression(b'age', IndexOperator.LTE, i64(26))])
    assert sorted(keys(got)) == users([20, 23, 26])
    assert indexed(c, [eq(b'state', b'WA')]) == []

    # A small slice of each matching row.
    names = SlicePredicate(column_names=[b'name'])
    got = indexed(c, [eq(b'state', b'CA'), IndexExpression(b'age', IndexOperator.LT, i64(7))], pred=names)
    assert sorted((s.key, [x.column.value for x in s.columns]) for s in got) == [
        (b'u00', [b'user 0']), (b'u03', [b'user 3']), (b'u06', [b'user 6'])]


def test_paging_by_start_key_and_count(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks))
    load(c)
    everything = keys(indexed(c, [eq(b'state', b'CA')]))
    assert sorted(everything) == users(range(0, 30, 3))
    assert keys(indexed(c, [eq(b'state', b'CA')], count=4)) == everything[:4]
    # pycassa's get_indexed_slices pages from the last key seen, which
    # comes back first (start_key is inclusive) and is dropped.
    seen, start = [], b''
    while True:
        page = keys(indexed(c, [eq(b'state', b'CA')], start=start, count=4))
        if seen:
            assert page[0] == seen[-1]
            page = page[1:]
        seen += page
        if len(page) < 3:
            break
        start = seen[-1]
    assert seen == everything


def test_range_slices_with_a_row_filter(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks))
    load(c)
    f = [eq(b'state', b'TX'), IndexExpression(b'age', IndexOperator.GT, i64(15))]
    got = c.get_range_slices(USERS, ALL, KeyRange(start_key=b'', end_key=b'', count=100, row_filter=f), ONE)
    assert sorted(keys(got)) == users([17, 20, 23, 26, 29])
    assert keys(got) == keys(indexed(c, f))
    # count limits the rows, and the next page starts at the last key.
    first = c.get_range_slices(USERS, ALL, KeyRange(start_key=b'', end_key=b'', count=2, row_filter=f), ONE)
    assert keys(first) == keys(got)[:2]
    rest = c.get_range_slices(USERS, ALL, KeyRange(start_key=first[-1].key, end_key=b'', count=100, row_filter=f), ONE)
    assert keys(rest) == keys(got)[1:]


def test_deletions_and_updates_are_seen_by_the_next_query(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks))
    load(c)
    assert sorted(keys(indexed(c, [eq(b'state', b'NY')]))) == users(range(1, 30, 3))
    c.insert(b'u01', USERS, Column(b'state', b'CA', 2), ONE)  # moves
    c.remove(b'u04', ColumnPath('Users', column=b'state'), 2, ONE)  # loses its state
    c.remove(b'u07', ColumnPath('Users'), 2, ONE)  # the whole row
    c.insert(b'u30', USERS, Column(b'state', b'NY', 2), ONE)  # a new one
    c.insert(b'u10', USERS, Column(b'age', i64(99), 2), ONE)  # another column changes
    ny = indexed(c, [eq(b'state', b'NY')])
    assert sorted(keys(ny)) == users([10, 13, 16, 19, 22, 25, 28, 30])
    assert keys(indexed(c, [eq(b'state', b'NY'), IndexExpression(b'age', IndexOperator.GT, i64(25))])) == [
        k for k in keys(ny) if k in (b'u10', b'u28')]
    assert b'u01' in keys(indexed(c, [eq(b'state', b'CA')]))
    # An older write does not bring a value back.
    c.insert(b'u01', USERS, Column(b'state', b'NY', 1), ONE)
    assert b'u01' not in keys(indexed(c, [eq(b'state', b'NY')]))
    # Back to a value it had: found again.
    c.insert(b'u04', USERS, Column(b'state', b'NY', 3), ONE)
    assert b'u04' in keys(indexed(c, [eq(b'state', b'NY')]))


def test_index_added_to_a_family_holding_data(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks, indexed=False))
    load(c)
    with pytest.raises(InvalidRequestException) as e:
        indexed(c, [eq(b'state', b'NY')])
    assert e.value.why == 'No indexed columns present in index clause with operator EQ'

    # pycassa's SystemManager.create_index: describe, add the ColumnDef,
    # send the CfDef back.
    cf = [d for d in c.describe_keyspace(new_ks).cf_defs if d.name == 'Users'][0]
    cf.column_metadata.append(ColumnDef(b'state', 'org.apache.cassandra.db.marshal.UTF8Type', IndexType.KEYS, None))
    c.system_update_column_family(cf)
    cf = [d for d in c.describe_keyspace(new_ks).cf_defs if d.name == 'Users'][0]
    state = [m for m in cf.column_metadata if m.name == b'state'][0]
    assert state.index_type == IndexType.KEYS and state.index_name  # a default name is given

    # The rows written before the index was declared are found once the
    # server has built it, which it may do in the background.
    want = users(range(1, 30, 3))
    deadline = time.time() + 30
    while sorted(keys(indexed(c, [eq(b'state', b'NY')]))) != want and time.time() < deadline:
        time.sleep(0.2)
    assert sorted(keys(indexed(c, [eq(b'state', b'NY')]))) == want
    c.insert(b'u31', USERS, Column(b'state', b'NY', 2), ONE)
    c.insert(b'u02', USERS, Column(b'state', b'NY', 2), ONE)
    assert sorted(keys(indexed(c, [eq(b'state', b'NY')]))) == sorted(want + [b'u02', b'u31'])


def test_refusals(fresh, new_ks):
    c = fresh
    make(c, new_ks, users_def(new_ks))
    load(c, 3)
    for exprs, why in [
        ([IndexExpression(b'age', IndexOperator.GT, i64(1))], 'No indexed columns present in index clause with operator EQ'),
        ([IndexExpression(b'state', IndexOperator.GT, b'A')], 'No indexed columns present in index clause with operator EQ'),
        ([], 'index clause list may not be empty'),
    ]:
        with pytest.raises(InvalidRequestException) as e:
            indexed(c, exprs)
        assert e.value.why == why
