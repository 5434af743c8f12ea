"""Schema changes at run time as pycassa 1.x's SystemManager makes them:
system_add_keyspace, system_add_column_family, system_update_*, the
describe_keyspace round trip (read a CfDef, change one field, send it back),
drops; and the column families only they can make: composite comparators
as pycassa packs them, key, default and per-column validators."""

import uuid

import pytest

from cassandra19.ttypes import (
    CfDef, Column, ColumnDef, ColumnParent, ColumnPath, InvalidRequestException, KsDef,
    NotFoundException, SlicePredicate, SliceRange)

from support19 import ONE, composite, i64, unpack_composite

SIMPLE = 'org.apache.cassandra.locator.SimpleStrategy'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))


def make_ks(c, name, *cfs):
    version = c.system_add_keyspace(KsDef(name, SIMPLE, {'replication_factor': '1'},
                                          cf_defs=[CfDef(name, *a, **kw) for a, kw in cfs]))
    uuid.UUID(version)  # the new schema version
    c.set_keyspace(name)


def test_keyspace_and_column_family_lifecycle(fresh, new_ks):
    make_ks(fresh, new_ks, (('Users',), dict(comparator_type='UTF8Type')))
    ksdef = fresh.describe_keyspace(new_ks)
    assert ksdef.name == new_ks
    assert ksdef.strategy_class == SIMPLE
    assert ksdef.strategy_options == {'replication_factor': '1'}
    assert [cf.name for cf in ksdef.cf_defs] == ['Users']
    assert ksdef.cf_defs[0].comparator_type == 'org.apache.cassandra.db.marshal.UTF8Type'
    assert new_ks in [k.name for k in fresh.describe_keyspaces()]

    fresh.system_add_column_family(CfDef(new_ks, 'Events', comparator_type='LongType'))
    fresh.insert(b'k', ColumnParent('Events'), Column(i64(2), b'v', 1), ONE)
    fresh.insert(b'k', ColumnParent('Events'), Column(i64(-1), b'v', 1), ONE)
    assert [c.column.name for c in fresh.get_slice(b'k', ColumnParent('Events'), ALL, ONE)] == [i64(-1), i64(2)]

    fresh.system_update_keyspace(KsDef(new_ks, SIMPLE, {'replication_factor': '2'}, cf_defs=[]))
    assert fresh.describe_keyspace(new_ks).strategy_options == {'replication_factor': '2'}

    fresh.system_drop_column_family('Events')
    with pytest.raises(InvalidRequestException) as e:
        fresh.get_slice(b'k', ColumnParent('Events'), ALL, ONE)
    assert e.value.why == 'unconfigured columnfamily Events'
    fresh.system_drop_keyspace(new_ks)
    with pytest.raises(NotFoundException):
        fresh.describe_keyspace(new_ks)
    assert new_ks not in [k.name for k in fresh.describe_keyspaces()]


def test_describe_keyspace_round_trip(fresh, new_ks):
    # pycassa's alter_column_family: read the CfDef back, change one field,
    # send the whole CfDef.
    make_ks(fresh, new_ks, (('Docs',), dict(comparator_type='UTF8Type', comment='first',
                                            default_validation_class='UTF8Type', gc_grace_seconds=3600)))
    before = fresh.describe_keyspace(new_ks).cf_defs[0]
    before.comment = 'second'
    fresh.system_update_column_family(before)
    after = fresh.describe_keyspace(new_ks).cf_defs[0]
    assert after.comment == 'second'
    assert after.id == before.id
    assert after.gc_grace_seconds == 3600
    assert after.default_validation_class == 'org.apache.cassandra.db.marshal.UTF8Type'
    assert after.comparator_type == 'org.apache.cassandra.db.marshal.UTF8Type'
    # The comparator cannot change.
    after.comparator_type = 'LongType'
    with pytest.raises(InvalidRequestException):
        fresh.system_update_column_family(after)


def test_schema_errors_get_the_real_servers_messages(fresh, new_ks):
    make_ks(fresh, new_ks, (('A',), {}))
    with pytest.raises(InvalidRequestException) as e:
        fresh.system_add_keyspace(KsDef(new_ks, SIMPLE, {'replication_factor': '1'}, cf_defs=[]))
    assert e.value.why == 'Keyspace names must be case-insensitively unique ("%s" conflicts with "%s")' % (new_ks, new_ks)
    with pytest.raises(InvalidRequestException) as e:
        fresh.system_add_column_family(CfDef(new_ks, 'A'))
    assert e.value.why == 'Cannot add already existing column family "A" to keyspace "%s"' % new_ks
    with pytest.raises(InvalidRequestException) as e:
        fresh.system_add_column_family(CfDef(new_ks, 'B', comparator_type='NoSuchType'))
    assert 'NoSuchType' in e.value.why


def test_dropping_a_missing_column_family(fresh, new_ks):
    # 1.2 checks access to the column family, and so that it exists,
    # before the drop itself.
    make_ks(fresh, new_ks, (('A',), {}))
    with pytest.raises(InvalidRequestException) as e:
        fresh.system_drop_column_family('NoSuchCF')
    assert e.value.why == 'unconfigured columnfamily NoSuchCF'


def test_composite_comparator_as_pycassa_packs_it(fresh, new_ks):
    make_ks(fresh, new_ks, (('Timeline',), dict(comparator_type='CompositeType(UTF8Type, LongType)')))
    cp = ColumnParent('Timeline')
    for user in ('bob', 'al'):
        for t in (30, 10, 20):
            fresh.insert(b'k', cp, Column(composite(user, t), b'%s-%d' % (user.encode(), t), 1), ONE)
    got = [unpack_composite(c.column.name) for c in fresh.get_slice(b'k', cp, ALL, ONE)]
    assert got == [[b'al', i64(10)], [b'al', i64(20)], [b'al', i64(30)],
                   [b'bob', i64(10)], [b'bob', i64(20)], [b'bob', i64(30)]]
    # Every column of bob: pycassa's ('bob',) start with EOC 0 ... ('bob',)
    # finish with EOC 1 (inclusive).
    rng = SlicePredicate(slice_range=SliceRange(composite('bob'), composite('bob', eoc=1), False, 100))
    got = [unpack_composite(c.column.name) for c in fresh.get_slice(b'k', cp, rng, ONE)]
    assert got == [[b'bob', i64(10)], [b'bob', i64(20)], [b'bob', i64(30)]]
    # bob from 20 on, exclusive start (EOC 1 on the start).
    rng = SlicePredicate(slice_range=SliceRange(composite('bob', 10, eoc=1), composite('bob', eoc=1), False, 100))
    assert [unpack_composite(c.column.name)[1] for c in fresh.get_slice(b'k', cp, rng, ONE)] == [i64(20), i64(30)]
    assert fresh.get(b'k', ColumnPath('Timeline', column=composite('al', 20)), ONE).column.value == b'al-20'
    with pytest.raises(InvalidRequestException):
        fresh.insert(b'k', cp, Column(composite('al', b'abc'), b'v', 1), ONE)


def test_validators(fresh, new_ks):
    make_ks(fresh, new_ks, (('Typed',), dict(
        comparator_type='UTF8Type', key_validation_class='LongType', default_validation_class='UTF8Type',
        column_metadata=[ColumnDef(b'age', 'Int32Type'), ColumnDef(b'id', 'UUIDType')])))
    cp = ColumnParent('Typed')
    fresh.insert(i64(7), cp, Column(b'age', b'\x00\x00\x00\x2a', 1), ONE)
    fresh.insert(i64(7), cp, Column(b'id', uuid.uuid4().bytes, 1), ONE)
    fresh.insert(i64(7), cp, Column(b'name', 'Zoë'.encode('utf-8'), 1), ONE)
    assert fresh.get_count(i64(7), cp, ALL, ONE) == 3
    with pytest.raises(InvalidRequestException) as e:
        fresh.insert(i64(7), cp, Column(b'age', b'abc', 1), ONE)
    assert e.value.why == '(Expected 4 or 0 byte int (3)) [%s][Typed][age] failed validation' % new_ks
    with pytest.raises(InvalidRequestException) as e:
        fresh.insert(b'short', cp, Column(b'name', b'v', 1), ONE)
    assert e.value.why == 'Expected 8 or 0 byte long (5)'
    with pytest.raises(InvalidRequestException) as e:
        fresh.insert(i64(7), cp, Column(b'name', b'\xff', 1), ONE)
    assert e.value.why == "(String didn't validate.) [%s][Typed][name] failed validation" % new_ks
    ksdef = fresh.describe_keyspace(new_ks).cf_defs[0]
    assert ksdef.key_validation_class == 'org.apache.cassandra.db.marshal.LongType'
    assert {c.name: c.validation_class for c in ksdef.column_metadata} == {
        b'age': 'org.apache.cassandra.db.marshal.Int32Type', b'id': 'org.apache.cassandra.db.marshal.UUIDType'}
