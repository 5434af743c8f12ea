"""describe_*, get_string_property and get_string_list_property (spec
section 8 and 16.5, 16.6, 16.11)."""

import json

import pytest
from thrift.Thrift import TApplicationException

from cassandra.constants import VERSION
from cassandra.ttypes import ColumnPath, ConsistencyLevel, InvalidRequestException, NotFoundException

from support import DEFAULT_CONF, TEST_CONF, fixture_text

MARSHAL = 'org.apache.cassandra.db.marshal.'
TEST_KEYSPACES = {'Keyspace1', 'Keyspace2', 'Keyspace3', 'Keyspace4', 'system'}


def test_version_and_cluster(client):
    assert VERSION == '2.2.0'
    assert client.describe_version() == VERSION
    assert client.describe_cluster_name() == 'Test Cluster'
    assert client.describe_partitioner() == 'org.apache.cassandra.dht.CollatingOrderPreservingPartitioner'


def test_default_configuration_partitioner(default_client):
    assert default_client.describe_partitioner() == 'org.apache.cassandra.dht.RandomPartitioner'


def test_describe_keyspaces(client):
    assert client.describe_keyspaces() == TEST_KEYSPACES


def desc(ks, cf, kind, comparator):
    return '%s.%s\nColumn Family Type: %s\nColumns Sorted By: %s%s\n' % (ks, cf, kind, MARSHAL, comparator)


def test_describe_keyspace(client):
    ks1 = client.describe_keyspace('Keyspace1')
    assert set(ks1) == {'Standard1', 'Standard2', 'Standard3', 'Standard4', 'StandardLong1',
                        'StandardLong2', 'Super1', 'Super2', 'Super3', 'Super4'}
    assert ks1['Standard1'] == {
        'Type': 'Standard',
        'CompareWith': MARSHAL + 'BytesType',
        'Desc': desc('Keyspace1', 'Standard1', 'Standard', 'BytesType'),
    }
    assert ks1['StandardLong1']['CompareWith'] == MARSHAL + 'LongType'
    assert ks1['Super4'] == {
        'Type': 'Super',
        'CompareWith': MARSHAL + 'BytesType',
        'CompareSubcolumnsWith': MARSHAL + 'UTF8Type',
        'Desc': desc('Keyspace1', 'Super4', 'Super', 'BytesType'),
    }
    ks2 = client.describe_keyspace('Keyspace2')
    assert set(ks2) == {'Standard1', 'Standard3', 'Super3', 'Super4'}
    assert ks2['Super4']['CompareSubcolumnsWith'] == MARSHAL + 'TimeUUIDType'
    assert ks2['Super3']['CompareSubcolumnsWith'] == MARSHAL + 'BytesType'


def test_describe_system_keyspace(client):
    system = client.describe_keyspace('system')
    assert system == {
        'LocationInfo': {'Type': 'Standard', 'CompareWith': MARSHAL + 'BytesType',
                         'Desc': 'persistent metadata for the local node'},
        'HintsColumnFamily': {'Type': 'Super', 'CompareWith': MARSHAL + 'BytesType',
                              'CompareSubcolumnsWith': MARSHAL + 'BytesType',
                              'Desc': 'hinted handoff data'},
    }


def test_describe_keyspace_with_comment_attribute(default_client):
    ks = default_client.describe_keyspace('Keyspace1')
    assert ks['Super2'] == {
        'Type': 'Super',
        'CompareWith': MARSHAL + 'UTF8Type',
        'CompareSubcolumnsWith': MARSHAL + 'UTF8Type',
        'Desc': 'A column family with supercolumns, whose column and subcolumn names are UTF8 strings',
    }
    assert ks['StandardByUUID1']['CompareWith'] == MARSHAL + 'TimeUUIDType'
    assert ks['Standard2']['CompareWith'] == MARSHAL + 'UTF8Type'


def test_describe_unknown_keyspace(client):
    with pytest.raises(NotFoundException):
        client.describe_keyspace('Nope')


def test_describe_ring(client):
    ring = client.describe_ring('Keyspace1')
    assert len(ring) == 1
    assert ring[0].start_token == ring[0].end_token
    assert ring[0].endpoints == ['127.0.0.1']
    for bad in ('system', 'Nope'):
        with pytest.raises(InvalidRequestException) as e:
            client.describe_ring(bad)
        assert e.value.why == 'There is no ring for the keyspace: %s' % bad


def test_ring_token_is_stable_across_calls(client):
    assert client.describe_ring('Keyspace1') == client.describe_ring('Keyspace2')


def test_string_properties(client):
    assert client.get_string_property('cluster name') == 'Test Cluster'
    assert client.get_string_property('version') == VERSION
    assert client.get_string_property('anything else') == '?'
    assert client.get_string_property('config file') == fixture_text(TEST_CONF)
    assert sorted(client.get_string_list_property('keyspaces')) == sorted(TEST_KEYSPACES)
    assert client.get_string_list_property('anything else') == []


def test_token_map_under_random_partitioner(default_client):
    token = default_client.describe_ring('Keyspace1')[0].end_token
    int(token)  # a decimal BigInteger
    assert json.loads(default_client.get_string_property('token map')) == {token: '127.0.0.1'}
    assert default_client.get_string_property('config file') == fixture_text(DEFAULT_CONF)


def test_token_map_under_collating_partitioner(client):
    token = client.describe_ring('Keyspace1')[0].end_token
    # Collation keys travel as hex; Token.toString() wraps them.
    int(token, 16)
    assert json.loads(client.get_string_property('token map')) == {'Token(bytes[%s])' % token: '127.0.0.1'}


def test_describe_splits(default_client):
    c = default_client
    for i in range(300):
        c.insert('Keyspace1', 'key%03d' % i, ColumnPath('Standard1', column=b'c'), b'v', 0, ConsistencyLevel.ONE)
    start, end = '0', str(2 ** 127)
    splits = c.describe_splits(start, end, 64)
    assert splits[0] == start
    assert splits[-1] == end
    tokens = [int(t) for t in splits]
    assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)


def test_describe_splits_rejects_non_positive_keys_per_split(default_client):
    # 0.6 divided by zero. describe_splits declares no exception in the IDL,
    # so the refusal can only travel as a TApplicationException; it must
    # say what is wrong and leave the connection usable.
    for n in (0, -1):
        with pytest.raises(TApplicationException) as e:
            default_client.describe_splits('0', '100', n)
        assert 'keys_per_split' in e.value.message
    assert default_client.describe_version() == VERSION
