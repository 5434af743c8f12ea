"""KEYS secondary indexes through pycassa: get_indexed_slices with EQ and
range clauses, paging with a small buffer, and an index added to a family
that already holds rows."""

import time

from pycassa.columnfamily import ColumnFamily
from pycassa.index import GT, GTE, LT, create_index_clause, create_index_expression
from pycassa.types import LongType, UTF8Type


def indexed(families, pool, sysm, keyspace, **kw):
    name = families.create('Indexed', comparator_type=UTF8Type(), **kw)
    return name, ColumnFamily(pool, name)


def test_indexed_slices(families, pool, sysm, keyspace):
    name, cf = indexed(families, pool, sysm, keyspace, column_validation_classes={'state': UTF8Type()})
    sysm.create_index(keyspace, name, 'birthdate', LongType(), index_name=name + '_bd')
    cf = ColumnFamily(pool, name)
    for i in range(20):
        cf.insert('u%02d' % i, {'birthdate': 1970 + i % 4, 'state': ['ca', 'tx'][i % 2], 'n': str(i)})
    clause = create_index_clause([create_index_expression('birthdate', 1971)])
    rows = dict(cf.get_indexed_slices(clause))
    assert sorted(rows) == ['u01', 'u05', 'u09', 'u13', 'u17']
    assert rows['u05'] == {'birthdate': 1971, 'n': '5', 'state': 'tx'}
    clause = create_index_clause([create_index_expression('birthdate', 1972),
                                  create_index_expression('n', '10', GTE),
                                  create_index_expression('n', '18', LT)])
    assert sorted(k for k, _ in cf.get_indexed_slices(clause)) == ['u10', 'u14']
    # Paged by start_key with a small buffer: every row once.
    clause = create_index_clause([create_index_expression('birthdate', 1973),
                                  create_index_expression('state', 'ca', GT)])
    keys = [k for k, _ in cf.get_indexed_slices(clause, buffer_size=2)]
    assert sorted(keys) == ['u03', 'u07', 'u11', 'u15', 'u19']
    assert len(set(keys)) == len(keys)
    clause = create_index_clause([create_index_expression('birthdate', 1970)], count=2)
    assert len(list(cf.get_indexed_slices(clause))) == 2
    clause = create_index_clause([create_index_expression('birthdate', 1970)])
    assert dict(cf.get_indexed_slices(clause, columns=['n']))['u04'] == {'n': '4'}
    # Changes are seen by the next query.
    cf.insert('u04', {'birthdate': 1999})
    cf.remove('u08')
    assert sorted(k for k, _ in cf.get_indexed_slices(clause)) == ['u00', 'u12', 'u16']


def test_index_added_to_rows(families, pool, sysm, keyspace):
    name, cf = indexed(families, pool, sysm, keyspace)
    for i in range(10):
        cf.insert('r%d' % i, {'color': ['red', 'blue'][i % 2]})
    sysm.create_index(keyspace, name, 'color', UTF8Type(), index_name=name + '_color')
    cf = ColumnFamily(pool, name)
    clause = create_index_clause([create_index_expression('color', 'blue')])
    deadline = time.time() + 30
    while True:
        keys = sorted(k for k, _ in cf.get_indexed_slices(clause))
        if keys or time.time() > deadline:
            break
        time.sleep(0.5)
    assert keys == ['r1', 'r3', 'r5', 'r7', 'r9']
