"""Data survives restarts (spec 16.10): a clean SIGTERM stop, and a
SIGKILL of the process under both CommitLogSync modes."""

import pytest

from cassandra.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel,
    Deletion, KeyRange, Mutation, NotFoundException, SlicePredicate,
    SliceRange, SuperColumn)

from support import DEFAULT_CONF, TEST_CONF, i64

ONE = ConsistencyLevel.ONE
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 1000))


def write_everything(c):
    for i in range(100):
        c.insert('Keyspace1', 'row%02d' % i, ColumnPath('Standard1', column=b'c'), b'v%d' % i, 5, ONE)
    c.batch_insert('Keyspace1', 'sup', {'Super1': [ColumnOrSuperColumn(super_column=SuperColumn(
        b'sc', [Column(i64(1), b'one', 5), Column(i64(2), b'two', 5)]))]}, ONE)
    c.batch_mutate('Keyspace1', {'row00': {'Standard1': [
        Mutation(deletion=Deletion(6, predicate=SlicePredicate(column_names=[b'c'])))]}}, ONE)
    c.remove('Keyspace1', 'sup', ColumnPath('Super1', b'sc', i64(2)), 6, ONE)
    c.remove('Keyspace1', 'row01', ColumnPath('Standard1'), 6, ONE)


def check_everything(c):
    with pytest.raises(NotFoundException):
        c.get('Keyspace1', 'row00', ColumnPath('Standard1', column=b'c'), ONE)
    for i in range(2, 100):
        got = c.get('Keyspace1', 'row%02d' % i, ColumnPath('Standard1', column=b'c'), ONE).column
        assert got == Column(b'c', b'v%d' % i, 5)
    got = c.get('Keyspace1', 'sup', ColumnPath('Super1', b'sc'), ONE).super_column
    assert got == SuperColumn(b'sc', [Column(i64(1), b'one', 5)])
    # Tombstones still shadow older writes after the restart.
    c.insert('Keyspace1', 'row01', ColumnPath('Standard1', column=b'c'), b'old', 6, ONE)
    assert c.get_slice('Keyspace1', 'row01', ColumnParent('Standard1'), ALL, ONE) == []
    rows = c.get_range_slices('Keyspace1', ColumnParent('Standard1'), ALL,
                              KeyRange(start_key='', end_key='', count=1000), ONE)
    assert len(rows) == 100


@pytest.mark.parametrize('config', [TEST_CONF, DEFAULT_CONF], ids=['batch', 'periodic'])
def test_data_survives_a_clean_stop(launcher, config):
    first = launcher.start(config)
    c = first.connect()
    write_everything(c)
    c.close()
    assert first.stop() == 0
    second = launcher.start(config, data=first.data)
    check_everything(launcher.connect(second))


@pytest.mark.parametrize('config', [TEST_CONF, DEFAULT_CONF], ids=['batch', 'periodic'])
def test_acknowledged_writes_survive_a_kill(launcher, config):
    first = launcher.start(config)
    c = first.connect()
    write_everything(c)
    first.kill()
    c.close()
    second = launcher.start(config, data=first.data)
    check_everything(launcher.connect(second))


def test_restart_twice_keeps_later_writes(launcher):
    first = launcher.start(TEST_CONF)
    c = first.connect()
    c.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'a'), b'1', 0, ONE)
    c.close()
    first.stop()
    second = launcher.start(TEST_CONF, data=first.data)
    c = second.connect()
    c.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'b'), b'2', 0, ONE)
    c.close()
    second.stop()
    third = launcher.start(TEST_CONF, data=first.data)
    got = launcher.connect(third).get_slice('Keyspace1', 'k', ColumnParent('Standard1'), ALL, ONE)
    assert [r.column for r in got] == [Column(b'a', b'1', 0), Column(b'b', b'2', 0)]
