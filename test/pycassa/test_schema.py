"""SystemManager: keyspaces and column families created, described,
altered and dropped as pycassa applications do."""

import pytest

from pycassa.cassandra.ttypes import InvalidRequestException, NotFoundException
from pycassa.system_manager import SystemManager, SIMPLE_STRATEGY, KEYS_INDEX
from pycassa.types import (CompositeType, CounterColumnType, DynamicCompositeType, LongType,
                           TimeUUIDType, UTF8Type, AsciiType, BytesType, IntegerType)

from conftest import unique

MARSHAL = 'org.apache.cassandra.db.marshal.'


def cfdef(sysm, keyspace, name):
    return sysm.get_keyspace_column_families(keyspace)[name]


def test_describe_calls(sysm, keyspace):
    # pycassa strips the package.
    assert sysm.describe_partitioner() == 'RandomPartitioner'
    assert sysm.describe_version().startswith('19.')
    versions = sysm.describe_schema_versions()
    assert 'UNREACHABLE' not in versions
    assert len(versions) == 1
    ring = sysm.describe_ring(keyspace)
    assert len(ring) >= 1
    assert all(r.endpoints for r in ring)
    assert sysm.describe_cluster_name()
    assert keyspace in sysm.list_keyspaces()
    assert 'system' in sysm.list_keyspaces()


def test_keyspace_lifecycle(sysm):
    name = unique('pyck_')
    sysm.create_keyspace(name, SIMPLE_STRATEGY, {'replication_factor': '1'}, durable_writes=False)
    try:
        props = sysm.get_keyspace_properties(name)
        assert props['replication_strategy'] == 'org.apache.cassandra.locator.SimpleStrategy'
        assert props['strategy_options'] == {'replication_factor': '1'}
        assert sysm._conn.describe_keyspace(name).durable_writes is False
        sysm.alter_keyspace(name, strategy_options={'replication_factor': '2'}, durable_writes=True)
        props = sysm.get_keyspace_properties(name)
        assert props['strategy_options'] == {'replication_factor': '2'}
        assert sysm._conn.describe_keyspace(name).durable_writes is True
        sysm.create_column_family(name, 'Standard1')
        assert list(sysm.get_keyspace_column_families(name)) == ['Standard1']
        with pytest.raises(InvalidRequestException) as e:
            sysm.create_keyspace(name, SIMPLE_STRATEGY, {'replication_factor': '1'})
        assert e.value.why == 'Keyspace names must be case-insensitively unique ("%s" conflicts with "%s")' % (name, name)
    finally:
        sysm.drop_keyspace(name)
    assert name not in sysm.list_keyspaces()
    with pytest.raises(NotFoundException):
        sysm.get_keyspace_properties(name)


def test_column_family_with_validators(sysm, keyspace, families):
    name = families.create('Users', comparator_type=UTF8Type(), key_validation_class=LongType(),
                           default_validation_class=BytesType(),
                           column_validation_classes={'age': IntegerType(), 'name': UTF8Type()},
                           comment='the users', gc_grace_seconds=3600)
    d = cfdef(sysm, keyspace, name)
    assert d.column_type == 'Standard'
    assert d.comparator_type == MARSHAL + 'UTF8Type'
    assert d.key_validation_class == MARSHAL + 'LongType'
    assert d.default_validation_class == MARSHAL + 'BytesType'
    assert d.comment == 'the users'
    assert d.gc_grace_seconds == 3600
    meta = sorted((c.name, c.validation_class, c.index_type) for c in d.column_metadata)
    assert meta == [('age', MARSHAL + 'IntegerType', None), ('name', MARSHAL + 'UTF8Type', None)]

    sysm.alter_column_family(keyspace, name, comment='changed', default_validation_class=AsciiType())
    sysm.alter_column(keyspace, name, 'email', UTF8Type())
    d = cfdef(sysm, keyspace, name)
    assert d.comment == 'changed'
    assert d.default_validation_class == MARSHAL + 'AsciiType'
    assert sorted(c.name for c in d.column_metadata) == ['age', 'email', 'name']


def test_comparators_described(sysm, keyspace, families):
    cases = [
        (dict(comparator_type=LongType()), 'comparator_type', MARSHAL + 'LongType'),
        (dict(comparator_type=TimeUUIDType()), 'comparator_type', MARSHAL + 'TimeUUIDType'),
        (dict(comparator_type=LongType(reversed=True)), 'comparator_type',
         MARSHAL + 'ReversedType(' + MARSHAL + 'LongType)'),
        (dict(comparator_type=CompositeType(LongType(), UTF8Type())), 'comparator_type',
         MARSHAL + 'CompositeType(' + MARSHAL + 'LongType,' + MARSHAL + 'UTF8Type)'),
        (dict(comparator_type=DynamicCompositeType({'l': LongType(), 's': UTF8Type()})), 'comparator_type',
         None),
        (dict(super=True, comparator_type=UTF8Type(), subcomparator_type=LongType()), 'subcomparator_type',
         MARSHAL + 'LongType'),
        (dict(default_validation_class=CounterColumnType()), 'default_validation_class',
         MARSHAL + 'CounterColumnType'),
    ]
    for kw, field, want in cases:
        name = families.create('Cmp', **kw)
        got = getattr(cfdef(sysm, keyspace, name), field)
        if want is None:
            # The aliases may come back in either order.
            assert got.startswith(MARSHAL + 'DynamicCompositeType(')
            inner = got[len(MARSHAL + 'DynamicCompositeType('):-1].split(',')
            assert sorted(inner) == ['l=>' + MARSHAL + 'LongType', 's=>' + MARSHAL + 'UTF8Type']
        else:
            assert got == want, kw
    d = cfdef(sysm, keyspace, name)
    assert d.column_type == 'Standard'


def test_super_column_family_described(sysm, keyspace, families):
    name = families.create('Super', super=True, comparator_type=LongType(), subcomparator_type=UTF8Type())
    d = cfdef(sysm, keyspace, name)
    assert d.column_type == 'Super'
    assert d.comparator_type == MARSHAL + 'LongType'
    assert d.subcomparator_type == MARSHAL + 'UTF8Type'


def test_index_created_and_dropped(sysm, keyspace, families):
    name = families.create('Idx', comparator_type=UTF8Type())
    sysm.create_index(keyspace, name, 'birthdate', LongType(), index_name=name + '_bd')
    meta = cfdef(sysm, keyspace, name).column_metadata
    assert [(c.name, c.validation_class, c.index_type, c.index_name) for c in meta] == \
        [('birthdate', MARSHAL + 'LongType', KEYS_INDEX, name + '_bd')]
    sysm.drop_index(keyspace, name, 'birthdate')
    meta = cfdef(sysm, keyspace, name).column_metadata
    assert [(c.name, c.index_type) for c in meta] == [('birthdate', None)]


def test_drop_column_family(sysm, keyspace, families):
    name = families.create('Gone')
    assert name in sysm.get_keyspace_column_families(keyspace)
    sysm.drop_column_family(keyspace, name)
    assert name not in sysm.get_keyspace_column_families(keyspace)
    with pytest.raises(InvalidRequestException) as e:
        sysm.drop_column_family(keyspace, name)
    assert e.value.why == 'unconfigured columnfamily ' + name


def test_duplicate_column_family_refused(sysm, keyspace, families):
    name = families.create('Twice')
    with pytest.raises(InvalidRequestException) as e:
        sysm.create_column_family(keyspace, name)
    assert e.value.why == 'Cannot add already existing column family "%s" to keyspace "%s"' % (name, keyspace)
