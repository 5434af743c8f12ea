"""Every InvalidRequestException of spec section 4, with its exact message,
and the protocol-level errors of section 1, through the raw Thrift API."""

import hashlib
import time

import pytest
from thrift.Thrift import TApplicationException

from cassandra.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel,
    Deletion, InvalidRequestException, KeyRange, Mutation, SlicePredicate,
    SliceRange, SuperColumn)

from support import i64

ONE = ConsistencyLevel.ONE
KS = 'Keyspace1'
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))


def why(fn, *args):
    with pytest.raises(InvalidRequestException) as e:
        fn(*args)
    return e.value.why


def cosc(name=b'c', value=b'v', ts=0):
    return ColumnOrSuperColumn(column=Column(name, value, ts))


# -- keys ---------------------------------------------------------------------

TOO_LONG_KEYS = [
    ('x' * 65536, 65536),
    ('€' * 21846, 65538),                 # 3 bytes each
    ('a' * 65534 + '\x00', 65536),        # U+0000 counts 2 in modified UTF-8
    ('a' * 65530 + '😀', 65536),           # a surrogate pair counts 3 + 3
    ('é' * 32768, 65536),                 # 2 bytes each
]


@pytest.mark.parametrize('key,length', TOO_LONG_KEYS, ids=['ascii', 'euro', 'nul', 'emoji', 'e-acute'])
def test_key_too_long(client, key, length):
    msg = 'Encoded key length of %d is longer than maximum of 65535' % length
    assert why(client.get, KS, key, ColumnPath('Standard1', column=b'c'), ONE) == msg
    assert why(client.insert, KS, key, ColumnPath('Standard1', column=b'c'), b'v', 0, ONE) == msg


@pytest.mark.parametrize('key', ['x' * 65535, '€' * 21845, 'a' * 65531 + '\x00', 'a' * 65529 + '😀'],
                         ids=['ascii', 'euro', 'nul', 'emoji'])
def test_key_of_maximum_length(client, key):
    client.insert(KS, key, ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)
    assert client.get(KS, key, ColumnPath('Standard1', column=b'c'), ONE).column.value == b'v'


def test_empty_key_in_every_data_call(client):
    msg = 'Key may not be empty'
    path = ColumnPath('Standard1', column=b'c')
    parent = ColumnParent('Standard1')
    assert why(client.get, KS, '', path, ONE) == msg
    assert why(client.get_slice, KS, '', parent, ALL, ONE) == msg
    assert why(client.multiget, KS, ['a', ''], path, ONE) == msg
    assert why(client.multiget_slice, KS, ['', 'a'], parent, ALL, ONE) == msg
    assert why(client.get_count, KS, '', parent, ONE) == msg
    assert why(client.insert, KS, '', path, b'v', 0, ONE) == msg
    assert why(client.batch_insert, KS, '', {'Standard1': [cosc()]}, ONE) == msg
    assert why(client.remove, KS, '', path, 0, ONE) == msg
    assert why(client.batch_mutate, KS, {'': {'Standard1': [Mutation(cosc())]}}, ONE) == msg


# -- keyspaces and column families ---------------------------------------------

def test_unknown_keyspace(client):
    msg = 'Keyspace Nope does not exist in this schema.'
    assert why(client.get, 'Nope', 'k', ColumnPath('Standard1', column=b'c'), ONE) == msg
    assert why(client.get_slice, 'Nope', 'k', ColumnParent('Standard1'), ALL, ONE) == msg
    assert why(client.insert, 'Nope', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE) == msg
    assert why(client.get_range_slices, 'Nope', ColumnParent('Standard1'), ALL,
               KeyRange(start_key='', end_key=''), ONE) == msg
    assert why(client.batch_mutate, 'Nope', {'k': {'Standard1': [Mutation(cosc())]}}, ONE) == msg


def test_column_family_names(client):
    path = ColumnPath('', column=b'c')
    assert why(client.get, KS, 'k', path, ONE) == 'non-empty columnfamily is required'
    assert why(client.get, KS, 'k', ColumnPath('Nope', column=b'c'), ONE) == 'unconfigured columnfamily Nope'
    assert why(client.get_count, KS, 'k', ColumnParent('Nope'), ONE) == 'unconfigured columnfamily Nope'
    assert why(client.remove, KS, 'k', ColumnPath('Nope'), 0, ONE) == 'unconfigured columnfamily Nope'
    assert why(client.batch_insert, KS, 'k', {'Nope': [cosc()]}, ONE) == 'unconfigured columnfamily Nope'
    assert why(client.get_range_slice, KS, ColumnParent('S'), SlicePredicate(column_names=[b'', b'']),
               '', '', 5, ONE) == 'unconfigured columnfamily S'
    # Column family names are case-sensitive.
    assert why(client.get, KS, 'k', ColumnPath('standard1', column=b'c'), ONE) == \
        'unconfigured columnfamily standard1'


# -- column paths (get, multiget, insert) -------------------------------------

PATH_CASES = [
    (ColumnPath('Standard1', b'x', b'y'), 'supercolumn parameter is invalid for standard CF Standard1'),
    (ColumnPath('Standard1'), 'column parameter is not optional for standard CF Standard1'),
    (ColumnPath('Super1'), 'supercolumn parameter is not optional for super CF Super1'),
    (ColumnPath('Super1', column=i64(1)), 'supercolumn parameter is not optional for super CF Super1'),
    (ColumnPath('Standard1', column=b''), 'column name must not be empty'),
    (ColumnPath('Standard1', column=b'x' * 65536), 'column name length must not be greater than 65535'),
    (ColumnPath('StandardLong1', column=b'abc'), 'A long is exactly 8 bytes'),
    (ColumnPath('Super1', b'sc1', b'x'), 'A long is exactly 8 bytes'),
    (ColumnPath('Super1', b'', i64(1)), 'supercolumn name must not be empty'),
    (ColumnPath('Super1', b'x' * 65536, i64(1)), 'supercolumn name length must not be greater than 65535'),
    (ColumnPath('Super1', b'sc1', b''), 'column name must not be empty'),
    (ColumnPath('Super4', b'sc1', b'\xc3\x28'), 'invalid UTF8 bytes [-61, 40]'),
]


@pytest.mark.parametrize('path,message', PATH_CASES)
def test_column_path_in_get_multiget_insert(client, path, message):
    assert why(client.get, KS, 'k', path, ONE) == message
    assert why(client.multiget, KS, ['k'], path, ONE) == message
    assert why(client.insert, KS, 'k', path, b'v', 0, ONE) == message


def test_get_of_super_column_name_checks_it_as_a_top_level_name(client):
    # With no column, the super column name is checked as a column name.
    assert why(client.get, KS, 'k', ColumnPath('Super1', b''), ONE) == 'column name must not be empty'


def test_insert_into_super_column_family_needs_a_column(client):
    # 0.6 failed an assertion here (INTERNAL_ERROR); thriftd answers with
    # an InvalidRequestException (spec 16.3).
    with pytest.raises(InvalidRequestException) as e:
        client.insert(KS, 'k', ColumnPath('Super1', b'sc1'), b'v', 0, ONE)
    assert e.value.why


def test_key_is_checked_before_path_in_insert(client):
    assert why(client.insert, KS, '', ColumnPath('Nope', column=b'c'), b'v', 0, ONE) == 'Key may not be empty'
    # ...but after the path in get.
    assert why(client.get, KS, '', ColumnPath('Nope', column=b'c'), ONE) == 'unconfigured columnfamily Nope'


# -- column parents and predicates ---------------------------------------------

def test_column_parent(client):
    msg = 'columnfamily alone is required for standard CF Standard1'
    parent = ColumnParent('Standard1', b'sc')
    assert why(client.get_slice, KS, 'k', parent, ALL, ONE) == msg
    assert why(client.get_count, KS, 'k', parent, ONE) == msg
    assert why(client.multiget_slice, KS, ['k'], parent, ALL, ONE) == msg
    assert why(client.get_range_slices, KS, parent, ALL, KeyRange(start_key='', end_key=''), ONE) == msg
    assert why(client.get_slice, KS, 'k', ColumnParent('Super1', b''), ALL, ONE) == \
        'column name must not be empty'


PREDICATE_CASES = [
    ('Standard1', None, SlicePredicate(), 'predicate column_names and slice_range may not both be null'),
    ('Standard1', None, SlicePredicate(column_names=[b'a'], slice_range=SliceRange(b'', b'')),
     'predicate column_names and slice_range may not both be present'),
    ('Standard1', None, SlicePredicate(column_names=[b'a', b'']), 'column name must not be empty'),
    ('Standard1', None, SlicePredicate(column_names=[b'x' * 65536]),
     'column name length must not be greater than 65535'),
    ('StandardLong1', None, SlicePredicate(slice_range=SliceRange(b'x', b'', False, 1)), 'A long is exactly 8 bytes'),
    ('StandardLong1', None, SlicePredicate(slice_range=SliceRange(b'', b'x', False, 1)), 'A long is exactly 8 bytes'),
    ('StandardLong1', None, SlicePredicate(column_names=[b'x']), 'A long is exactly 8 bytes'),
    ('StandardLong1', None, SlicePredicate(slice_range=SliceRange(i64(10), i64(0), False, 1)),
     'range finish must come after start in the order of traversal'),
    ('StandardLong1', None, SlicePredicate(slice_range=SliceRange(i64(0), i64(10), True, 1)),
     'range finish must come after start in the order of traversal'),
    ('StandardLong1', None, SlicePredicate(slice_range=SliceRange(i64(-1), i64(1), False, 1)), None),
    ('Standard1', None, SlicePredicate(slice_range=SliceRange(b'', b'', False, -1)),
     'get_slice requires non-negative count'),
    ('Super1', b'sc1', SlicePredicate(slice_range=SliceRange(b'x', b'', False, 1)), 'A long is exactly 8 bytes'),
    ('Super1', b'sc1', SlicePredicate(slice_range=SliceRange(i64(10), i64(0), False, 1)),
     'range finish must come after start in the order of traversal'),
    # Without a super column the names are super column names (BytesType).
    ('Super1', None, SlicePredicate(slice_range=SliceRange(b'x', b'', False, 1)), None),
    ('Super1', None, SlicePredicate(slice_range=SliceRange(b'b', b'a', False, 1)),
     'range finish must come after start in the order of traversal'),
    ('Super4', b'sc1', SlicePredicate(column_names=[b'\xff']), 'invalid UTF8 bytes [-1]'),
]


@pytest.mark.parametrize('cf,sc,predicate,message', PREDICATE_CASES)
def test_predicate_in_every_slice_call(client, cf, sc, predicate, message):
    parent = ColumnParent(cf, sc)
    calls = [
        lambda: client.get_slice(KS, 'k', parent, predicate, ONE),
        lambda: client.multiget_slice(KS, ['k'], parent, predicate, ONE),
        lambda: client.get_range_slices(KS, parent, predicate, KeyRange(start_key='', end_key=''), ONE),
        lambda: client.get_range_slice(KS, parent, predicate, '', '', 100, ONE),
    ]
    for call in calls:
        if message is None:
            call()
        else:
            assert why(call) == message


# -- key ranges ---------------------------------------------------------------

KEY_RANGE_CASES = [
    (KeyRange(start_key='a'), 'start key and end key must either both be non-null, or both be null'),
    (KeyRange(end_key='a'), 'start key and end key must either both be non-null, or both be null'),
    (KeyRange(start_token='a'), 'start token and end token must either both be non-null, or both be null'),
    (KeyRange(end_token=''), 'start token and end token must either both be non-null, or both be null'),
    (KeyRange(), 'exactly one of {start key, end key} or {start token, end token} must be specified'),
    (KeyRange(start_key='', end_key='', start_token='', end_token=''),
     'exactly one of {start key, end key} or {start token, end token} must be specified'),
    (KeyRange(start_key='b', end_key='a'), 'start key must sort before (or equal to) finish key in your partitioner!'),
    (KeyRange(start_key='a', end_key='b', count=0), 'maxRows must be positive'),
    (KeyRange(start_key='a', end_key='b', count=-1), 'maxRows must be positive'),
]


@pytest.mark.parametrize('key_range,message', KEY_RANGE_CASES)
def test_key_range(client, key_range, message):
    assert why(client.get_range_slices, KS, ColumnParent('Standard1'), ALL, key_range, ONE) == message


def test_deprecated_range_slice_checks_its_keys(client):
    assert why(client.get_range_slice, KS, ColumnParent('Standard1'), ALL, 'b', 'a', 10, ONE) == \
        'start key must sort before (or equal to) finish key in your partitioner!'
    assert why(client.get_range_slice, KS, ColumnParent('Standard1'), ALL, 'a', 'b', 0, ONE) == \
        'maxRows must be positive'


def _token(key):
    return abs(int.from_bytes(hashlib.md5(key.encode('utf-8')).digest(), 'big', signed=True))


def test_key_range_under_random_partitioner(default_client):
    keys = sorted(['a', 'b', 'c', 'd'], key=_token)
    low, high = keys[0], keys[-1]
    assert why(default_client.get_range_slices, KS, ColumnParent('Standard1'), ALL,
               KeyRange(start_key=high, end_key=low), ONE) == \
        "start key's md5 sorts after end key's md5.  this is not allowed; " \
        "you probably should not specify end key at all, under RandomPartitioner"
    # An empty end key is the minimum token: no upper bound, never an error.
    default_client.get_range_slices(KS, ColumnParent('Standard1'), ALL,
                                    KeyRange(start_key=high, end_key=''), ONE)


def test_unparsable_tokens_are_invalid_requests(client, default_client):
    # 0.6 answered INTERNAL_ERROR; thriftd says what is wrong (spec 16.3).
    for c, token in ((client, 'abc'), (default_client, 'not-a-number')):
        with pytest.raises(InvalidRequestException) as e:
            c.get_range_slices(KS, ColumnParent('Standard1'), ALL,
                               KeyRange(start_token=token, end_token=token), ONE)
        assert e.value.why


# -- removes ------------------------------------------------------------------

REMOVE_CASES = [
    (ColumnPath('Standard1', b'sc'), 'supercolumn may not be specified for standard CF Standard1'),
    (ColumnPath('Standard1', b'sc', b'c'), 'supercolumn may not be specified for standard CF Standard1'),
    (ColumnPath('Super1', column=i64(1)),
     'A column cannot be specified without specifying a super column for removal on super CF Super1'),
    (ColumnPath('Standard1', column=b''), 'column name must not be empty'),
    (ColumnPath('StandardLong1', column=b'x'), 'A long is exactly 8 bytes'),
    (ColumnPath('Super1', b'sc', b'x'), 'A long is exactly 8 bytes'),
    (ColumnPath('Super1', b''), 'column name must not be empty'),
]


@pytest.mark.parametrize('path,message', REMOVE_CASES)
def test_remove_path(client, path, message):
    assert why(client.remove, KS, 'k', path, 0, ONE) == message


def test_remove_with_unknown_consistency_level(client):
    # 0.6 crashed (INTERNAL_ERROR); thriftd rejects it (spec 16.3).
    with pytest.raises(InvalidRequestException) as e:
        client.remove(KS, 'k', ColumnPath('Standard1', column=b'c'), 0, 42)
    assert e.value.why


# -- batch_insert and batch_mutate ---------------------------------------------

def test_batch_insert(client):
    assert why(client.batch_insert, KS, 'k', {'Standard1': [ColumnOrSuperColumn()]}, ONE) == \
        'ColumnOrSuperColumn must have one or both of Column or SuperColumn'
    assert why(client.batch_insert, KS, 'k', {'Standard1': [cosc(name=b'')]}, ONE) == \
        'column name must not be empty'
    sc = SuperColumn(b'sc', [Column(b'bad', b'v', 0)])
    assert why(client.batch_insert, KS, 'k', {'Super1': [ColumnOrSuperColumn(super_column=sc)]}, ONE) == \
        'A long is exactly 8 bytes'
    assert why(client.batch_insert, KS, 'k', {'Standard1': [ColumnOrSuperColumn(super_column=sc)]}, ONE) == \
        'supercolumn parameter is invalid for standard CF Standard1'
    # A super column without subcolumns validates nothing and writes nothing.
    client.batch_insert(KS, 'k', {'Super1': [ColumnOrSuperColumn(super_column=SuperColumn(b'', []))]}, ONE)


def test_batch_insert_with_both_fields_is_invalid(client):
    # 0.6 failed an assertion (INTERNAL_ERROR); thriftd answers with an IRE.
    both = ColumnOrSuperColumn(column=Column(b'c', b'v', 0), super_column=SuperColumn(b'sc', []))
    with pytest.raises(InvalidRequestException) as e:
        client.batch_insert(KS, 'k', {'Standard1': [both]}, ONE)
    assert e.value.why


def test_batch_mutate_with_both_fields_writes_the_column(client):
    bad = ColumnOrSuperColumn(column=Column(b'c', b'v', 0),
                              super_column=SuperColumn(b'sc', [Column(b'd', b'w', 0)]))
    assert why(client.batch_mutate, KS, {'k': {'Standard1': [Mutation(bad)]}}, ONE) == \
        'supercolumn parameter is invalid for standard CF Standard1'
    # Both fields are validated (a subcolumn here would be refused on a
    # standard column family), then only the column is written.
    both = ColumnOrSuperColumn(column=Column(b'c', b'v', 0), super_column=SuperColumn(b'sc', []))
    client.batch_mutate(KS, {'k': {'Standard1': [Mutation(both)]}}, ONE)
    got = client.get_slice(KS, 'k', ColumnParent('Standard1'), ALL, ONE)
    assert got == [ColumnOrSuperColumn(column=Column(b'c', b'v', 0))]


MUTATION_CASES = [
    ('Standard1', Mutation(cosc(), Deletion(2, predicate=SlicePredicate(column_names=[b'baz']))),
     'Mutation may have either a ColumnOrSuperColumn or a Deletion, but not both'),
    ('Standard1', Mutation(), 'Mutation must have one ColumnOrSuperColumn or one Deletion'),
    ('Standard1', Mutation(ColumnOrSuperColumn()),
     'ColumnOrSuperColumn must have one or both of Column or SuperColumn'),
    ('Standard1', Mutation(deletion=Deletion(2, predicate=SlicePredicate())),
     'A SlicePredicate must be given a list of Columns, a SliceRange, or both'),
    ('Standard1', Mutation(deletion=Deletion(2, predicate=SlicePredicate(
        slice_range=SliceRange(b'0', b'', False, 10)))),
     'Deletion does not yet support SliceRange predicates.'),
    ('Standard1', Mutation(deletion=Deletion(2, predicate=SlicePredicate(
        column_names=[b'a'], slice_range=SliceRange(b'', b'', False, 10)))),
     'Deletion does not yet support SliceRange predicates.'),
    ('StandardLong1', Mutation(deletion=Deletion(2, predicate=SlicePredicate(
        slice_range=SliceRange(b'x', b'', False, 10)))),
     'A long is exactly 8 bytes'),
    ('Standard1', Mutation(deletion=Deletion(2, super_column=b'sc', predicate=SlicePredicate(
        column_names=[b'a']))),
     'supercolumn specified to ColumnFamily Standard1 containing normal columns'),
    ('Standard1', Mutation(deletion=Deletion(2, predicate=SlicePredicate(column_names=[b'']))),
     'column name must not be empty'),
    ('Super1', Mutation(deletion=Deletion(2, super_column=b'sc', predicate=SlicePredicate(
        column_names=[b'x']))),
     'A long is exactly 8 bytes'),
    ('Super1', Mutation(deletion=Deletion(2, super_column=b'', predicate=SlicePredicate(
        column_names=[i64(1)]))),
     'supercolumn name must not be empty'),
    ('Super1', Mutation(ColumnOrSuperColumn(column=Column(b'c', b'v', 0))),
     'supercolumn parameter is not optional for super CF Super1'),
]


@pytest.mark.parametrize('cf,mutation,message', MUTATION_CASES)
def test_batch_mutate(client, cf, mutation, message):
    assert why(client.batch_mutate, KS, {'k': {cf: [mutation]}}, ONE) == message


def test_deletion_of_super_column_in_standard_column_family(client):
    msg = why(client.batch_mutate, KS, {'k': {'Standard1': [Mutation(deletion=Deletion(2, super_column=b'sc'))]}},
              ONE)
    assert msg.startswith('deletion of super_column is not possible on a standard ColumnFamily '
                          '(KeySpace=Keyspace1 ColumnFamily=Standard1 Deletion='), msg
    assert msg.endswith(')')


def test_deletion_on_unknown_column_family_or_keyspace(client):
    # 0.6 crashed on a pure Deletion here (INTERNAL_ERROR); thriftd rejects
    # it with an InvalidRequestException (spec 16.3).
    for ks, cf in ((KS, 'Nope'), ('Nope', 'Standard1')):
        with pytest.raises(InvalidRequestException) as e:
            client.batch_mutate(ks, {'k': {cf: [Mutation(deletion=Deletion(2))]}}, ONE)
        assert e.value.why


# -- consistency levels ---------------------------------------------------------

def test_read_consistency_levels(client):
    zero = 'Consistency level zero may not be applied to read operations'
    anyl = 'Consistency level any may not be applied to read operations'
    path = ColumnPath('Standard1', column=b'c')
    parent = ColumnParent('Standard1')
    for level, msg in ((ConsistencyLevel.ZERO, zero), (ConsistencyLevel.ANY, anyl)):
        assert why(client.get, KS, 'k', path, level) == msg
        assert why(client.get_slice, KS, 'k', parent, ALL, level) == msg
        assert why(client.multiget, KS, ['k'], path, level) == msg
        assert why(client.multiget_slice, KS, ['k'], parent, ALL, level) == msg
        assert why(client.get_count, KS, 'k', parent, level) == msg


def test_consistency_is_checked_after_the_request(client):
    assert why(client.get, KS, '', ColumnPath('Standard1', column=b'c'), ConsistencyLevel.ZERO) == \
        'Key may not be empty'
    assert why(client.get_slice, KS, 'k', ColumnParent('Nope'), ALL, ConsistencyLevel.ANY) == \
        'unconfigured columnfamily Nope'


def test_range_reads_at_zero_and_any(client):
    client.insert(KS, 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)
    parent = ColumnParent('Standard1')
    # ZERO crashed 0.6 (INTERNAL_ERROR); thriftd gives the read message.
    assert why(client.get_range_slices, KS, parent, ALL, KeyRange(start_key='', end_key=''),
               ConsistencyLevel.ZERO) == 'Consistency level zero may not be applied to read operations'
    assert why(client.get_range_slice, KS, parent, ALL, '', '', 10, ConsistencyLevel.ZERO) == \
        'Consistency level zero may not be applied to read operations'
    # ANY behaves like ONE for range reads.
    got = client.get_range_slices(KS, parent, ALL, KeyRange(start_key='', end_key=''), ConsistencyLevel.ANY)
    assert [s.key for s in got] == ['k']


# -- the system keyspace ---------------------------------------------------------

def test_system_keyspace_is_readable_not_writable(client):
    client.get_slice('system', 'L', ColumnParent('LocationInfo'), ALL, ONE)
    client.get_range_slices('system', ColumnParent('HintsColumnFamily'), ALL,
                            KeyRange(start_key='', end_key=''), ONE)
    for call in (
        lambda: client.insert('system', 'k', ColumnPath('LocationInfo', column=b'c'), b'v', 0, ONE),
        lambda: client.remove('system', 'L', ColumnPath('LocationInfo'), 0, ONE),
        lambda: client.batch_insert('system', 'k', {'LocationInfo': [cosc()]}, ONE),
        lambda: client.batch_mutate('system', {'k': {'LocationInfo': [Mutation(cosc())]}}, ONE),
    ):
        with pytest.raises(InvalidRequestException) as e:
            call()
        assert e.value.why


# -- protocol errors ------------------------------------------------------------

def test_missing_required_argument_is_a_protocol_error(client):
    with pytest.raises(TApplicationException) as e:
        client.get_slice(KS, 'k', ColumnParent('Standard1'), None, ONE)
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert e.value.message.startswith("Required field 'predicate' was not present!"), e.value.message
    with pytest.raises(TApplicationException) as e:
        client.get(None, 'k', ColumnPath('Standard1', column=b'c'), ONE)
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert e.value.message.startswith("Required field 'keyspace' was not present!"), e.value.message
    # The connection stays usable.
    assert client.describe_version() == '2.2.0'


NESTED_MISSING_FIELDS = [
    ('ColumnPath of insert', "Required field 'column_family' was not present! Struct: ColumnPath",
     lambda c: c.insert(KS, 'k', ColumnPath(None, column=b'c'), b'v', 0, ONE)),
    ('Column in ColumnOrSuperColumn in batch_insert', "Required field 'value' was not present! Struct: Column",
     lambda c: c.batch_insert(KS, 'k', {'Standard1': [cosc(), ColumnOrSuperColumn(Column(b'c', None, 0)), cosc()],
                                        'Standard2': [cosc()]}, ONE)),
    ('SuperColumn without columns', "Required field 'columns' was not present! Struct: SuperColumn",
     lambda c: c.batch_insert(KS, 'k', {'Super1': [ColumnOrSuperColumn(super_column=SuperColumn(i64(1), None))]}, ONE)),
    ("Column in a SuperColumn's columns", "Required field 'name' was not present! Struct: Column",
     lambda c: c.batch_insert(KS, 'k', {'Super1': [ColumnOrSuperColumn(super_column=SuperColumn(
         i64(1), [Column(b'c', b'v', 0), Column(None, b'v', 0)]))]}, ONE)),
    ('Mutation, ColumnOrSuperColumn, Column in batch_mutate', "Required field 'value' was not present! Struct: Column",
     lambda c: c.batch_mutate(KS, {'k': {'Standard1': [Mutation(column_or_supercolumn=cosc()),
                                                       Mutation(column_or_supercolumn=ColumnOrSuperColumn(Column(b'c', None, 0)))],
                                         'Standard2': [Mutation(column_or_supercolumn=cosc())]},
                                   'k2': {'Standard1': [Mutation(column_or_supercolumn=cosc())]}}, ONE)),
    ("Deletion's predicate in batch_mutate", "Required field 'start' was not present! Struct: SliceRange",
     lambda c: c.batch_mutate(KS, {'k': {'Standard1': [
         Mutation(deletion=Deletion(5, predicate=SlicePredicate(slice_range=SliceRange(None, b'', False, 3)))),
         Mutation(column_or_supercolumn=cosc())]}}, ONE)),
    ('SliceRange of get_slice', "Required field 'finish' was not present! Struct: SliceRange",
     lambda c: c.get_slice(KS, 'k', ColumnParent('Standard1'), SlicePredicate(slice_range=SliceRange(b'', None)), ONE)),
    ('ColumnParent of get_range_slices', "Required field 'column_family' was not present! Struct: ColumnParent",
     lambda c: c.get_range_slices(KS, ColumnParent(None), ALL, KeyRange(start_key='', end_key='', count=10), ONE)),
]


@pytest.mark.parametrize('framed', [False, True], ids=['unframed', 'framed'])
def test_missing_required_field_of_a_nested_struct_is_a_protocol_error(launcher, node, framed):
    # The rest of the arguments is read all the same, so one connection
    # serves every case and the calls after each, at once.
    client = launcher.connect(node, framed=framed)
    client.insert(KS, 'here', ColumnPath('Standard1', column=b'c'), b'v', 1, ONE)
    for name, message, call in NESTED_MISSING_FIELDS:
        with pytest.raises(TApplicationException) as e:
            call(client)
        assert e.value.type == TApplicationException.PROTOCOL_ERROR, name
        assert e.value.message.startswith(message), (name, e.value.message)
        began = time.monotonic()
        assert client.describe_version() == '2.2.0', name
        assert client.get(KS, 'here', ColumnPath('Standard1', column=b'c'), ONE).column.value == b'v', name
        assert time.monotonic() - began < 2, name
    # None of the refused calls wrote anything.
    assert client.get_slice(KS, 'k', ColumnParent('Standard1'), ALL, ONE) == []
    assert client.get_slice(KS, 'k', ColumnParent('Super1'), ALL, ONE) == []


def test_unknown_consistency_level_is_a_protocol_error(client):
    with pytest.raises(TApplicationException) as e:
        client.get(KS, 'k', ColumnPath('Standard1', column=b'c'), 42)
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert e.value.message.startswith("Required field 'consistency_level' was not present!"), e.value.message
