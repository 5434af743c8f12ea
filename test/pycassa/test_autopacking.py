"""pycassa packs and unpacks names, keys and values by the family's
comparator and validators: Long, UUID and TimeUUID names, composite and
dynamic composite names with inclusive and exclusive slice bounds, typed
keys and typed values."""

import uuid
from datetime import datetime
from decimal import Decimal

from pycassa.columnfamily import ColumnFamily
from pycassa.types import (AsciiType, BooleanType, CompositeType, DateType, DecimalType, DoubleType,
                           DynamicCompositeType, IntegerType, LexicalUUIDType, LongType, TimeUUIDType,
                           UTF8Type, UUIDType)
from pycassa.util import convert_time_to_uuid


def test_long_names(families, pool):
    cf = ColumnFamily(pool, families.create('Long', comparator_type=LongType()))
    names = [5, -3, 2 ** 40, 0, -2 ** 50, 17]
    cf.insert('k', dict((n, str(n)) for n in names))
    assert list(cf.get('k')) == sorted(names)
    assert cf.get('k')[2 ** 40] == str(2 ** 40)
    assert list(cf.get('k', column_start=-3, column_finish=17)) == [-3, 0, 5, 17]
    assert list(cf.get('k', column_start=6, column_reversed=True)) == [5, 0, -3, -2 ** 50]
    assert list(cf.get('k', columns=[17, 4, -3])) == [-3, 17]


def test_reversed_long_names(families, pool):
    cf = ColumnFamily(pool, families.create('RevLong', comparator_type=LongType(reversed=True)))
    cf.insert('k', {1: 'a', 3: 'c', 2: 'b'})
    assert list(cf.get('k')) == [3, 2, 1]
    assert list(cf.get('k', column_start=2)) == [2, 1]


def test_time_uuid_names(families, pool):
    cf = ColumnFamily(pool, families.create('Time', comparator_type=TimeUUIDType()))
    base = 1300000000
    names = [convert_time_to_uuid(base + i, randomize=True) for i in (30, 10, 20, 40)]
    cf.insert('k', dict((n, 'v') for n in names))
    got = list(cf.get('k'))
    assert got == sorted(names, key=lambda u: u.time)
    assert all(isinstance(u, uuid.UUID) for u in got)
    # Slices by time: pycassa turns a timestamp or datetime bound into the
    # lowest (start) or highest (finish) TimeUUID of that time.
    window = list(cf.get('k', column_start=base + 10, column_finish=base + 30))
    assert [u.time for u in window] == [u.time for u in sorted(names, key=lambda u: u.time)[:3]]
    window = list(cf.get('k', column_start=datetime.utcfromtimestamp(base + 15),
                         column_finish=datetime.utcfromtimestamp(base + 35)))
    assert len(window) == 2
    later = list(cf.get('k', column_start=base + 20, column_reversed=True))
    assert len(later) == 2


def test_uuid_names(families, pool):
    for comparator in (UUIDType(), LexicalUUIDType()):
        cf = ColumnFamily(pool, families.create('Uuid', comparator_type=comparator))
        names = [uuid.UUID(int=i << 64) for i in (9, 1, 5)] + [uuid.uuid4()]
        cf.insert('k', dict((n, n.hex) for n in names))
        got = cf.get('k')
        assert sorted(got) == sorted(names)
        assert got[names[0]] == names[0].hex


def test_composite_names(families, pool):
    cf = ColumnFamily(pool, families.create('Comp', comparator_type=CompositeType(LongType(), UTF8Type())))
    names = [(1, u'a'), (1, u'b'), (2, u'a'), (2, u'c'), (3, u'b'), (-1, u'z')]
    cf.insert('k', dict((n, '%d%s' % n) for n in names))
    assert list(cf.get('k')) == sorted(names)
    assert cf.get('k')[(2, u'c')] == '2c'
    # Bounds of fewer components, inclusive by default.
    assert list(cf.get('k', column_start=(1,), column_finish=(2,))) == \
        [(1, u'a'), (1, u'b'), (2, u'a'), (2, u'c')]
    # Exclusive bounds: (value, False).
    assert list(cf.get('k', column_start=((1, False),), column_finish=((3, False),))) == \
        [(2, u'a'), (2, u'c')]
    assert list(cf.get('k', column_start=(2, u'a'), column_finish=(2, (u'c', False)))) == [(2, u'a')]
    assert list(cf.get('k', column_start=(2,), column_reversed=True)) == \
        [(2, u'c'), (2, u'a'), (1, u'b'), (1, u'a'), (-1, u'z')]
    assert cf.get_count('k', column_start=(2,), column_finish=(3,)) == 3


def test_dynamic_composite_names(families, pool):
    cf = ColumnFamily(pool, families.create('DynComp', comparator_type=DynamicCompositeType(
        {'l': LongType(), 's': UTF8Type(), 'a': AsciiType()})))
    names = [(('l', 2), ('s', u'b')), (('l', 1), ('s', u'x')), (('l', 2), ('s', u'a')),
             (('l', 3), ('a', 'q'))]
    cf.insert('k', dict((n, 'v%d' % i) for i, n in enumerate(names)))
    got = cf.get('k')
    assert list(got) == [names[1], names[2], names[0], names[3]]
    assert got[(('l', 2), ('s', u'b'))] == 'v0'
    assert list(cf.get('k', column_start=(('l', 2),), column_finish=(('l', 2),))) == [names[2], names[0]]
    assert list(cf.get('k', column_start=((('l', 1), False),))) == [names[2], names[0], names[3]]
    # The same components by class name instead of alias.
    assert cf.get('k', columns=[(('LongType', 1), ('UTF8Type', u'x'))]) == {names[1]: 'v1'}


def test_typed_keys(families, pool):
    cf = ColumnFamily(pool, families.create('LongKeys', key_validation_class=LongType()))
    for k in (3, -7, 2 ** 33):
        cf.insert(k, {'c': str(k)})
    assert cf.get(-7) == {'c': '-7'}
    assert sorted(cf.multiget([3, 2 ** 33, 99])) == [3, 2 ** 33]
    assert sorted(k for k, _ in cf.get_range()) == [-7, 3, 2 ** 33]

    cf = ColumnFamily(pool, families.create('UuidKeys', key_validation_class=TimeUUIDType()))
    keys = [uuid.uuid1() for _ in range(3)]
    for k in keys:
        cf.insert(k, {'c': 'v'})
    assert sorted(k for k, _ in cf.get_range()) == sorted(keys)


def test_typed_values(families, pool):
    cf = ColumnFamily(pool, families.create('Values', comparator_type=UTF8Type(), default_validation_class=LongType(),
                                            column_validation_classes={
                                                'born': DateType(), 'ok': BooleanType(), 'score': DoubleType(),
                                                'big': IntegerType(), 'price': DecimalType(), 'id': TimeUUIDType(),
                                                'name': UTF8Type()}))
    born = datetime(2011, 3, 4, 5, 6, 7)
    tid = uuid.uuid1()
    row = {'born': born, 'ok': True, 'score': 2.5, 'big': 10 ** 30, 'price': Decimal('12.345'),
           'id': tid, 'name': u'\u00e9t\u00e9', 'count': 42}
    cf.insert('k', row)
    assert dict(cf.get('k')) == row
    assert cf.get('k', columns=['count'])['count'] == 42
