"""Counters as pycassa 1.x uses them: a CounterColumnType column family
(Standard and Super), add and remove_counter, counter mutations in
batch_mutate, counters read back as CounterColumn and CounterSuperColumn by
every read call, the real server's refusals, and many connections adding
to one counter at once."""

import threading

import pytest

from cassandra19.ttypes import (
    CfDef, Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel, CounterColumn,
    CounterSuperColumn, Deletion, InvalidRequestException, KeyRange, KsDef, Mutation, NotFoundException,
    SlicePredicate, SliceRange)

from support19 import ONE, i64

SIMPLE = 'org.apache.cassandra.locator.SimpleStrategy'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
HITS = ColumnParent('Hits')


def make_counters(c, name):
    c.system_add_keyspace(KsDef(name, SIMPLE, {'replication_factor': '1'}, cf_defs=[
        CfDef(name, 'Hits', comparator_type='UTF8Type', default_validation_class='CounterColumnType'),
        CfDef(name, 'SuperHits', column_type='Super', comparator_type='UTF8Type', subcomparator_type='LongType',
              default_validation_class='CounterColumnType'),
        CfDef(name, 'Plain', comparator_type='UTF8Type'),
    ]))
    c.set_keyspace(name)


def totals(cosc):
    return [(x.counter_column.name, x.counter_column.value) for x in cosc]


def add(name, value):
    return Mutation(column_or_supercolumn=ColumnOrSuperColumn(counter_column=CounterColumn(name, value)))


def test_counters_add_read_remove(fresh, new_ks):
    c = fresh
    make_counters(c, new_ks)
    c.add(b'page', HITS, CounterColumn(b'views', 5), ONE)
    c.add(b'page', HITS, CounterColumn(b'views', -2), ONE)
    c.batch_mutate({
        b'page': {'Hits': [add(b'likes', 7), add(b'likes', 1)]},
        b'other': {
            'Hits': [add(b'views', 10)],
            'SuperHits': [Mutation(column_or_supercolumn=ColumnOrSuperColumn(counter_super_column=CounterSuperColumn(
                b'day', [CounterColumn(i64(1), 3), CounterColumn(i64(2), 4)])))],
        },
    }, ONE)
    c.add(b'other', ColumnParent('SuperHits', b'day'), CounterColumn(i64(1), 1), ONE)

    got = c.get(b'page', ColumnPath('Hits', column=b'views'), ONE)
    assert got.counter_column.value == 3 and got.column is None
    assert totals(c.get_slice(b'page', HITS, ALL, ONE)) == [(b'likes', 8), (b'views', 3)]
    multi = c.multiget_slice([b'page', b'other'], HITS, ALL, ONE)
    assert totals(multi[b'page']) == [(b'likes', 8), (b'views', 3)]
    assert totals(multi[b'other']) == [(b'views', 10)]
    assert c.get_count(b'page', HITS, ALL, ONE) == 2
    assert c.multiget_count([b'page', b'other'], HITS, ALL, ONE) == {b'page': 2, b'other': 1}
    rows = {ks.key: totals(ks.columns) for ks in c.get_range_slices(HITS, ALL, KeyRange(b'', b'', count=100), ONE)}
    assert rows == {b'page': [(b'likes', 8), (b'views', 3)], b'other': [(b'views', 10)]}
    sup = c.get(b'other', ColumnPath('SuperHits', super_column=b'day'), ONE).counter_super_column
    assert sup.name == b'day' and [(x.name, x.value) for x in sup.columns] == [(i64(1), 4), (i64(2), 4)]

    c.remove_counter(b'page', ColumnPath('Hits', column=b'likes'), ONE)
    with pytest.raises(NotFoundException):
        c.get(b'page', ColumnPath('Hits', column=b'likes'), ONE)
    # A deletion in a counter family needs no timestamp.
    c.batch_mutate({b'other': {'Hits': [Mutation(deletion=Deletion(predicate=SlicePredicate(column_names=[b'views'])))]}}, ONE)
    assert c.get_slice(b'other', HITS, ALL, ONE) == []


def test_counter_refusals(fresh, new_ks):
    c = fresh
    make_counters(c, new_ks)
    cases = [
        (lambda: c.add(b'k', ColumnParent('Plain'), CounterColumn(b'a', 1), ONE),
         'invalid operation for non commutative columnfamily Plain'),
        (lambda: c.insert(b'k', HITS, Column(b'a', b'v', 1), ONE),
         'invalid operation for commutative columnfamily Hits'),
        (lambda: c.batch_mutate({b'k': {'Hits': [Mutation(column_or_supercolumn=ColumnOrSuperColumn(
            column=Column(b'a', b'v', 1, ttl=10)))]}}, ONE),
         'invalid operation for commutative columnfamily Hits'),
        (lambda: c.add(b'k', HITS, CounterColumn(b'a', 1), ConsistencyLevel.ANY),
         'Consistency level ANY is not yet supported for counter columnfamily Hits'),
        (lambda: c.atomic_batch_mutate({b'k': {'Hits': [add(b'a', 1)]}}, ONE),
         'Counter mutations are not allowed in atomic batches'),
        (lambda: c.add(b'k', ColumnParent('SuperHits'), CounterColumn(i64(1), 1), ONE),
         'missing mandatory super column name for super CF SuperHits'),
    ]
    for call, why in cases:
        with pytest.raises(InvalidRequestException) as e:
            call()
        assert e.value.why == why


def test_concurrent_adds_are_exact(server, fresh, new_ks):
    make_counters(fresh, new_ks)
    errors = []

    def writer(n):
        c = server.connect(new_ks)
        try:
            for _ in range(50):
                c.add(b'hot', HITS, CounterColumn(b'sum', n), ONE)
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            c.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(1, 17)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert fresh.get(b'hot', ColumnPath('Hits', column=b'sum'), ONE).counter_column.value == 50 * sum(range(1, 17))
