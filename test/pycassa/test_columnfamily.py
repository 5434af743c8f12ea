"""ColumnFamily on a standard family: insert, get, multiget, counts,
ranges, xget, removes, batches, timestamps, TTLs and truncate."""

import time

import pytest

from pycassa.batch import Mutator
from pycassa.cassandra.ttypes import ConsistencyLevel, NotFoundException
from pycassa.columnfamily import ColumnFamily
from pycassa.types import UTF8Type


@pytest.fixture
def cf(families, pool):
    return ColumnFamily(pool, families.create('Std', comparator_type=UTF8Type()))


def cols(n, prefix='c'):
    return dict(('%s%02d' % (prefix, i), 'v%d' % i) for i in range(n))


def test_insert_get(cf):
    cf.insert('k1', {'b': 'vb', 'a': 'va', 'c': 'vc'})
    assert list(cf.get('k1').items()) == [('a', 'va'), ('b', 'vb'), ('c', 'vc')]
    assert dict(cf.get('k1', columns=['c', 'a', 'zz'])) == {'a': 'va', 'c': 'vc'}
    assert list(cf.get('k1', column_start='b').keys()) == ['b', 'c']
    assert list(cf.get('k1', column_finish='b').keys()) == ['a', 'b']
    assert list(cf.get('k1', column_reversed=True).keys()) == ['c', 'b', 'a']
    assert list(cf.get('k1', column_count=2).keys()) == ['a', 'b']
    assert list(cf.get('k1', column_start='c', column_reversed=True, column_count=2).keys()) == ['c', 'b']
    with pytest.raises(NotFoundException):
        cf.get('missing')
    with pytest.raises(NotFoundException):
        cf.get('k1', columns=['zz'])
    with pytest.raises(NotFoundException):
        cf.get('k1', column_start='d')


def test_timestamps_and_consistency(cf):
    cf.insert('k', {'a': 'new'}, timestamp=2000, write_consistency_level=ConsistencyLevel.ALL)
    cf.insert('k', {'a': 'old'}, timestamp=1000)
    assert cf.get('k', include_timestamp=True,
                  read_consistency_level=ConsistencyLevel.QUORUM) == {'a': ('new', 2000)}
    # A removal older than the column leaves it.
    cf.remove('k', columns=['a'], timestamp=1500)
    assert cf.get('k') == {'a': 'new'}
    cf.remove('k', columns=['a'], timestamp=2500)
    with pytest.raises(NotFoundException):
        cf.get('k')
    # A write older than the removal does not come back.
    cf.insert('k', {'a': 'older'}, timestamp=2400)
    with pytest.raises(NotFoundException):
        cf.get('k')


def test_multiget_and_counts(cf):
    for i in range(5):
        cf.insert('row%d' % i, cols(i + 1))
    got = cf.multiget(['row3', 'missing', 'row0', 'row4'])
    assert list(got.keys()) == ['row3', 'row0', 'row4']
    assert got['row0'] == {'c00': 'v0'}
    assert len(got['row4']) == 5
    got = cf.multiget(['row2', 'row4'], column_start='c01', column_count=2)
    assert dict((k, list(v)) for k, v in got.items()) == {'row2': ['c01', 'c02'], 'row4': ['c01', 'c02']}
    assert cf.get_count('row4') == 5
    assert cf.get_count('row4', column_start='c03') == 2
    assert cf.get_count('missing') == 0
    counts = cf.multiget_count(['row1', 'row3', 'missing'])
    assert dict(counts) == {'row1': 2, 'row3': 4, 'missing': 0}


def test_xget_pages(cf):
    cf.insert('wide', cols(25))
    names = [n for n, _ in cf.xget('wide', buffer_size=4)]
    assert names == ['c%02d' % i for i in range(25)]
    assert [n for n, _ in cf.xget('wide', column_start='c20', buffer_size=2)] == ['c20', 'c21', 'c22', 'c23', 'c24']
    assert [n for n, _ in cf.xget('wide', column_reversed=True, column_count=3, buffer_size=2)] == \
        ['c24', 'c23', 'c22']


def test_get_range_pages_every_row(cf):
    keys = ['r%02d' % i for i in range(23)]
    cf.batch_insert(dict((k, {'a': k, 'b': 'x'}) for k in keys))
    got = dict(cf.get_range(buffer_size=5))
    assert sorted(got) == keys
    assert got['r07'] == {'a': 'r07', 'b': 'x'}
    assert len(list(cf.get_range(row_count=7, buffer_size=3))) == 7
    assert dict(cf.get_range(columns=['b'], buffer_size=10))['r00'] == {'b': 'x'}
    # A removed row is left out of ranges (filter_empty), or seen empty.
    cf.remove('r05')
    assert 'r05' not in dict(cf.get_range())
    empty = dict(cf.get_range(filter_empty=False))
    assert 'r05' not in empty or empty['r05'] == {}


def test_remove(cf):
    cf.insert('k', cols(4))
    cf.remove('k', columns=['c01', 'c03'])
    assert list(cf.get('k')) == ['c00', 'c02']
    cf.remove('k')
    with pytest.raises(NotFoundException):
        cf.get('k')
    assert cf.get_count('k') == 0


def test_batches(cf, families, pool):
    with cf.batch(queue_size=3) as b:
        for i in range(7):
            b.insert('b%d' % i, {'n': str(i)})
        b.remove('b3')
        b.remove('b4', columns=['n'])
    got = cf.multiget(['b%d' % i for i in range(7)])
    assert sorted(got) == ['b0', 'b1', 'b2', 'b5', 'b6']

    other = ColumnFamily(pool, families.create('Other', comparator_type=UTF8Type()))
    m = Mutator(pool, queue_size=50)
    m.insert(cf, 'shared', {'x': '1'})
    m.insert(other, 'shared', {'y': '2'})
    m.remove(cf, 'b0')
    m.send()
    assert cf.get('shared') == {'x': '1'}
    assert other.get('shared') == {'y': '2'}
    with pytest.raises(NotFoundException):
        cf.get('b0')

    # atomic_batch_mutate, new in 1.2.
    with Mutator(pool, atomic=True) as m:
        m.insert(cf, 'atomic', {'p': 'q'})
        m.insert(other, 'atomic', {'r': 's'})
    assert cf.get('atomic') == {'p': 'q'}
    assert other.get('atomic') == {'r': 's'}


def wait_until(cond, what, timeout=120):
    """Polls cond until it holds: a TTL's expiry is waited for, as long as
    a busy machine needs, up to timeout seconds."""
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError('after %d s, %s' % (timeout, what))
        time.sleep(0.2)


def test_ttl(cf):
    # A TTL is read back from a column that cannot expire before the read,
    # however slow the machine; the expiry is tested with a TTL of 1 s,
    # waited for.
    cf.insert('t', {'long': 'b'}, ttl=300)
    cf.insert('t', {'forever': 'c'})
    got = cf.get('t', include_ttl=True)
    assert got['long'] == ('b', 300)
    assert got['forever'] == ('c', None)
    cf.insert('t', {'short': 'a'}, ttl=1)
    with cf.batch() as b:
        b.insert('t2', {'x': 'y'}, ttl=1)
    wait_until(lambda: list(cf.get('t')) == ['forever', 'long'],
               'the column with a TTL of 1 s has not expired: %r' % list(cf.get('t')))

    def t2_gone():
        try:
            cf.get('t2')
        except NotFoundException:
            return True
        return False
    wait_until(t2_gone, 'the row whose one column had a TTL of 1 s is still there')
    assert cf.get_count('t') == 2


def test_truncate(cf):
    cf.batch_insert({'a': {'x': '1'}, 'b': {'x': '2'}})
    cf.truncate()
    assert list(cf.get_range()) == []
