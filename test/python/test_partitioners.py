"""Cassandra 0.6's system-test scenarios replayed under every partitioner
thriftd offers (spec 16.8), on the system-test configuration and on the
stock one: the answers must not depend on how rows are placed, except for
the order of range scans, which follows the partitioner."""

import pytest

from cassandra.ttypes import (
    ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel, Deletion,
    InvalidRequestException, KeyRange, Mutation, NotFoundException, SlicePredicate,
    SliceRange, SuperColumn, Column)

from support import DEFAULT_CONF, TEST_CONF, derived_config, i64

ONE = ConsistencyLevel.ONE
KS = 'Keyspace1'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 1000))

PARTITIONERS = [
    ('org.apache.cassandra.dht.CollatingOrderPreservingPartitioner', True),
    ('org.apache.cassandra.dht.OrderPreservingPartitioner', True),
    ('org.apache.cassandra.dht.ByteOrderedPartitioner', True),
    ('org.apache.cassandra.dht.RandomPartitioner', False),
    ('org.apache.cassandra.dht.Murmur3Partitioner', False),
]
FIXTURES = [('test', TEST_CONF, 'Super1'), ('default', DEFAULT_CONF, 'Super1')]


def partitioner_of(conf):
    with open(conf, encoding='utf-8') as f:
        text = f.read()
    return text[text.index('<Partitioner>'):text.index('</Partitioner>') + len('</Partitioner>')]


@pytest.fixture(params=[(f, p) for f in FIXTURES for p in PARTITIONERS],
                ids=lambda fp: fp[0][0] + '-' + fp[1][0].rsplit('.', 1)[1])
def setup(request, launcher, tmp_path):
    (name, conf, _), (partitioner, ordered) = request.param
    derived = derived_config(str(tmp_path), conf, 'storage-conf-%s.xml' % name,
                             replace=[(partitioner_of(conf), '<Partitioner>%s</Partitioner>' % partitioner)])
    node = launcher.start(derived)
    client = launcher.connect(node)
    assert client.describe_partitioner() == partitioner
    return client, ordered, name


def cols(result):
    return [(c.column.name, c.column.value) for c in result]


def test_system_test_scenarios(setup):
    c, ordered, fixture = setup
    sub = i64 if fixture == 'test' else (lambda n: b'sub%d' % n)
    # _insert_simple / test_insert
    c.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'value1', 0, ONE)
    c.insert(KS, 'key1', ColumnPath('Standard1', column=b'c2'), b'value2', 0, ONE)
    assert c.get(KS, 'key1', ColumnPath('Standard1', column=b'c1'), ONE).column == Column(b'c1', b'value1', 0)
    assert cols(c.get_slice(KS, 'key1', ColumnParent('Standard1'), ALL, ONE)) == [(b'c1', b'value1'), (b'c2', b'value2')]
    assert c.get_count(KS, 'key1', ColumnParent('Standard1'), ONE) == 2
    with pytest.raises(NotFoundException):
        c.get(KS, 'key1', ColumnPath('Standard1', column=b'c3'), ONE)
    # _insert_super / test_super_get
    for sc, n in ((b'sc1', 4), (b'sc2', 5), (b'sc2', 6)):
        c.insert(KS, 'key1', ColumnPath('Super1', sc, sub(n)), b'value%d' % n, 0, ONE)
    got = c.get(KS, 'key1', ColumnPath('Super1', b'sc2'), ONE).super_column
    assert got == SuperColumn(b'sc2', [Column(sub(5), b'value5', 0), Column(sub(6), b'value6', 0)])
    # test_super_reversed: super columns reversed, subcolumns ascending
    rev = c.get_slice(KS, 'key1', ColumnParent('Super1'), SlicePredicate(slice_range=SliceRange(b'', b'', True, 2)), ONE)
    assert [s.super_column.name for s in rev] == [b'sc2', b'sc1']
    assert [x.name for x in rev[0].super_column.columns] == [sub(5), sub(6)]
    # test_batch_mutate_standard_columns / test_batch_mutate_remove_standard_row
    keys = ['key_%d' % i for i in range(27, 32)]
    c.batch_mutate(KS, dict((k, {'Standard1': [Mutation(ColumnOrSuperColumn(Column(b'c%d' % i, b'v%d' % i, 0)))
                                               for i in range(3)]}) for k in keys), ONE)
    for k in keys:
        assert len(c.get_slice(KS, k, ColumnParent('Standard1'), ALL, ONE)) == 3
    c.batch_mutate(KS, {keys[0]: {'Standard1': [Mutation(deletion=Deletion(1))]}}, ONE)
    assert c.get_slice(KS, keys[0], ColumnParent('Standard1'), ALL, ONE) == []
    # test_remove_column / resurrection rules
    c.remove(KS, 'key1', ColumnPath('Standard1', column=b'c1'), 1, ONE)
    c.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'stale', 1, ONE)
    assert cols(c.get_slice(KS, 'key1', ColumnParent('Standard1'), ALL, ONE)) == [(b'c2', b'value2')]
    c.insert(KS, 'key1', ColumnPath('Standard1', column=b'c1'), b'back', 2, ONE)
    assert cols(c.get_slice(KS, 'key1', ColumnParent('Standard1'), ALL, ONE)) == [(b'c1', b'back'), (b'c2', b'value2')]

    # test_range_with_remove and paging: every row once, the deleted row
    # as a ghost, in the partitioner's order.
    everything = ['key1'] + keys
    seen, start = [], ''
    while True:
        page = c.get_range_slices(KS, ColumnParent('Standard1'), ALL, KeyRange(start_key=start, end_key='', count=3), ONE)
        fresh = page[1:] if start else page
        seen.extend(fresh)
        if len(page) < 3:
            break
        start = page[-1].key
    assert sorted(s.key for s in seen) == sorted(everything)
    assert [s.key for s in seen if not s.columns] == [keys[0]]
    if ordered:
        assert [s.key for s in seen] == sorted(everything)
        within = c.get_range_slices(KS, ColumnParent('Standard1'), ALL, KeyRange(start_key='key_28', end_key='key_30', count=100), ONE)
        assert [s.key for s in within] == ['key_28', 'key_29', 'key_30']
    else:
        with pytest.raises(InvalidRequestException):
            # Keys out of token order are refused unless end_key is "".
            a, b = seen[-1].key, seen[0].key
            c.get_range_slices(KS, ColumnParent('Standard1'), ALL, KeyRange(start_key=a, end_key=b, count=100), ONE)
    # The whole ring by tokens, starting after the node's token.
    node = c.describe_ring(KS)[0].start_token
    ring = c.get_range_slices(KS, ColumnParent('Standard1'), ALL, KeyRange(start_token=node, end_token=node, count=100), ONE)
    assert sorted(s.key for s in ring) == sorted(everything)
