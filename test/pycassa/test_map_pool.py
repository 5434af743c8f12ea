"""ColumnFamilyMap (objects to rows) and ConnectionPool behaviour:
threads sharing a pool, a dead server in the list, a keyspace that does
not exist."""

import threading
from datetime import datetime

import pytest

from pycassa.cassandra.ttypes import InvalidRequestException, NotFoundException
from pycassa.columnfamily import ColumnFamily
from pycassa.columnfamilymap import ColumnFamilyMap
from pycassa.pool import AllServersUnavailable, ConnectionPool
from pycassa.types import DateType, LongType, UTF8Type


class User(object):
    key = UTF8Type()
    name = UTF8Type()
    age = LongType()
    joined = DateType()
    nick = UTF8Type(default=u'none')


def test_column_family_map(families, pool):
    name = families.create('Users', comparator_type=UTF8Type(), key_validation_class=UTF8Type(),
                           column_validation_classes={'name': UTF8Type(), 'age': LongType(), 'joined': DateType()})
    users = ColumnFamilyMap(User, pool, name)
    u = User()
    u.key, u.name, u.age, u.joined = u'ann', u'Ann', 41, datetime(2012, 1, 2, 3, 4, 5)
    users.insert(u)
    v = User()
    v.key, v.name, v.age, v.joined, v.nick = u'bob', u'Bob', 7, datetime(2013, 6, 7), u'bobby'
    users.insert(v)
    got = users.get(u'ann')
    assert (got.key, got.name, got.age, got.joined, got.nick) == (u'ann', u'Ann', 41, u.joined, u'none')
    assert sorted(users.multiget([u'ann', u'bob', u'eve'])) == [u'ann', u'bob']
    assert sorted(x.key for x in users.get_range()) == [u'ann', u'bob']
    assert users.get(u'bob', columns=['age']).age == 7
    users.remove(v)
    with pytest.raises(NotFoundException):
        users.get(u'bob')
    # The row is plain columns underneath.
    raw = ColumnFamily(pool, name)
    assert dict(raw.get(u'ann')) == {'age': 41, 'joined': u.joined, 'name': u'Ann'}


def test_threads_share_a_pool(families, pool):
    cf = ColumnFamily(pool, families.create('Threads', comparator_type=UTF8Type()))
    errors = []

    def work(t):
        try:
            for i in range(25):
                cf.insert('t%d' % t, {'c%02d' % i: str(i)})
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    counts = cf.multiget_count(['t0', 't1', 't2', 't3'])
    assert dict(counts) == {'t0': 25, 't1': 25, 't2': 25, 't3': 25}


def test_dead_server_in_list(server, keyspace, families):
    name = families.create('Failover', comparator_type=UTF8Type())
    # 127.0.0.1:1 refuses connections; the pool uses the live server.
    p = ConnectionPool(keyspace, server_list=['127.0.0.1:1', server], pool_size=2, timeout=5, prefill=True)
    try:
        cf = ColumnFamily(p, name)
        cf.insert('k', {'a': 'b'})
        assert cf.get('k') == {'a': 'b'}
    finally:
        p.dispose()
    with pytest.raises(AllServersUnavailable):
        ConnectionPool(keyspace, server_list=['127.0.0.1:1'], pool_size=1, timeout=1, prefill=True)


def test_unknown_keyspace(server):
    with pytest.raises(InvalidRequestException) as e:
        ConnectionPool('NoSuchKeyspace', server_list=[server], pool_size=1, prefill=True)
    assert e.value.why == "Keyspace 'NoSuchKeyspace' does not exist"
