"""Counters (add, insert into a counter family, remove_counter, super
counters) and super column families, through pycassa."""

import pytest

from pycassa.cassandra.ttypes import NotFoundException
from pycassa.columnfamily import ColumnFamily
from pycassa.types import CounterColumnType, LongType, UTF8Type


def test_counters(families, pool):
    cf = ColumnFamily(pool, families.create('Counter', comparator_type=UTF8Type(),
                                            default_validation_class=CounterColumnType()))
    cf.add('k', 'hits')
    cf.add('k', 'hits', 41)
    cf.add('k', 'misses', -3)
    assert dict(cf.get('k')) == {'hits': 42, 'misses': -3}
    # An insert into a counter family adds.
    cf.insert('k', {'hits': 8, 'new': 1})
    cf.add('other', 'hits', 5)
    assert dict(cf.get('k')) == {'hits': 50, 'misses': -3, 'new': 1}
    got = cf.multiget(['k', 'other', 'none'])
    assert dict((k, dict(v)) for k, v in got.items()) == {'k': {'hits': 50, 'misses': -3, 'new': 1},
                                                          'other': {'hits': 5}}
    assert cf.get_count('k') == 3
    assert dict(cf.get_range())['other'] == {'hits': 5}
    cf.remove_counter('k', 'misses')
    assert dict(cf.get('k')) == {'hits': 50, 'new': 1}
    with cf.batch() as b:
        b.insert('batched', {'a': 2, 'b': 3})
    assert dict(cf.get('batched')) == {'a': 2, 'b': 3}


def test_super_counters(families, pool):
    cf = ColumnFamily(pool, families.create('SuperCounter', super=True, comparator_type=UTF8Type(),
                                            subcomparator_type=UTF8Type(),
                                            default_validation_class=CounterColumnType()))
    cf.add('k', 'x', 3, super_column='day1')
    cf.add('k', 'x', 4, super_column='day1')
    cf.add('k', 'y', 1, super_column='day2')
    assert cf.get('k') == {'day1': {'x': 7}, 'day2': {'y': 1}}
    assert cf.get('k', super_column='day1') == {'x': 7}
    cf.remove_counter('k', 'x', super_column='day1')
    assert cf.get('k') == {'day2': {'y': 1}}


def test_super_columns(families, pool):
    cf = ColumnFamily(pool, families.create('Super', super=True, comparator_type=UTF8Type(),
                                            subcomparator_type=LongType()))
    cf.insert('k', {'b': {2: 'b2', 1: 'b1'}, 'a': {5: 'a5'}, 'c': {1: 'c1', 9: 'c9', 4: 'c4'}})
    got = cf.get('k')
    assert list(got) == ['a', 'b', 'c']
    assert list(got['c']) == [1, 4, 9]
    assert cf.get('k', super_column='c', column_start=2) == {4: 'c4', 9: 'c9'}
    assert cf.get('k', super_column='b', columns=[2]) == {2: 'b2'}
    assert list(cf.get('k', column_start='b', column_count=1)) == ['b']
    assert list(cf.get('k', column_reversed=True)) == ['c', 'b', 'a']
    assert cf.get_count('k') == 3
    assert cf.get_count('k', super_column='c') == 3
    assert cf.multiget(['k', 'none'], super_column='a') == {'k': {5: 'a5'}}
    assert dict(cf.get_range(super_column='b'))['k'] == {1: 'b1', 2: 'b2'}
    cf.remove('k', columns=[4], super_column='c')
    assert cf.get('k', super_column='c') == {1: 'c1', 9: 'c9'}
    cf.remove('k', super_column='a')
    assert list(cf.get('k')) == ['b', 'c']
    with pytest.raises(NotFoundException):
        cf.get('k', super_column='a')
    with cf.batch() as b:
        b.insert('k2', {'s': {1: 'one'}})
        b.remove('k', super_column='b')
    assert cf.get('k2') == {'s': {1: 'one'}}
    assert list(cf.get('k')) == ['c']
