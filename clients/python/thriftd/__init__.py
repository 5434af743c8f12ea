"""A small pycassa-style client for Cassandra 0.6's Thrift API, as served by
thriftd.

    import thriftd
    client = thriftd.connect('localhost', 9160)
    users = thriftd.ColumnFamily(client, 'Keyspace1', 'Standard1')
    users.insert('jsmith', {'first': 'John', 'last': 'Smith'})
    users.get('jsmith')        # {b'first': b'John', b'last': b'Smith'}

The generated Thrift bindings are the `cassandra` package beside this one
(cassandra.Cassandra, cassandra.ttypes); every Client method of the raw API
is reachable on a thriftd.Client.
"""

from cassandra.ttypes import (
    AuthenticationException, AuthorizationException, ConsistencyLevel,
    InvalidRequestException, NotFoundException, TimedOutException,
    UnavailableException)

from .columnfamily import CfMutator, ColumnFamily, Mutator
from .connection import Client, connect
from .util import (
    convert_time_to_uuid, convert_uuid_to_time, pack_long, time_uuid, timestamp,
    unpack_long)

__all__ = [
    'connect', 'Client', 'ColumnFamily', 'Mutator', 'CfMutator',
    'ConsistencyLevel', 'NotFoundException', 'InvalidRequestException',
    'UnavailableException', 'TimedOutException', 'AuthenticationException',
    'AuthorizationException', 'timestamp', 'pack_long', 'unpack_long',
    'time_uuid', 'convert_time_to_uuid', 'convert_uuid_to_time',
]
