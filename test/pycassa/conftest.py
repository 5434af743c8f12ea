"""Fixtures of the pycassa suite.

The suite drives a 19.x Thrift server through the real pycassa 1.11.2
library (Python 2.7): test/suites/pycassa.sh starts thriftd (on LevelDB or,
with THRIFTD_TEST_BACKEND=cassandra, on the Cassandra store) or picks the
real Cassandra 1.2.19 node, and passes its address as
THRIFTD_PYCASSA_TARGET=host:port. The server must use RandomPartitioner.

Each run creates one keyspace of a fresh name, SimpleStrategy with
replication factor 1, and the column families of every test inside it
(through pycassa's SystemManager); it is dropped when the run ends unless
THRIFTD_PYCASSA_KEEP_KEYSPACE=1 (the script sets it for thriftd, whose
data it throws away)."""

import os
import uuid

import pytest

from pycassa.pool import ConnectionPool
from pycassa.system_manager import SystemManager, SIMPLE_STRATEGY


def target():
    t = os.environ.get('THRIFTD_PYCASSA_TARGET')
    if not t:
        raise pytest.UsageError('THRIFTD_PYCASSA_TARGET=host:port is not set: '
                                'run the suite with test/suites/pycassa.sh')
    return t


def unique(prefix):
    """A name no other run uses, also on a shared server."""
    return prefix + uuid.uuid4().hex[:10]


@pytest.fixture(scope='session')
def server():
    """host:port of the server under test."""
    return target()


@pytest.fixture(scope='session')
def keyspace(server):
    sm = SystemManager(server)
    name = unique('pyc_')
    sm.create_keyspace(name, SIMPLE_STRATEGY, {'replication_factor': '1'})
    sm.close()
    yield name
    if os.environ.get('THRIFTD_PYCASSA_KEEP_KEYSPACE') != '1':
        sm = SystemManager(server)
        sm.drop_keyspace(name)
        sm.close()


@pytest.fixture
def sysm(server):
    sm = SystemManager(server)
    yield sm
    sm.close()


@pytest.fixture(scope='session')
def pool(server, keyspace):
    p = ConnectionPool(keyspace, server_list=[server], pool_size=3, timeout=10, prefill=False)
    yield p
    p.dispose()


class Families(object):
    """Creates column families in the run's keyspace, each under a name
    of its own (so that no test sees another's rows)."""

    def __init__(self, server, keyspace, pool):
        self.server, self.keyspace, self.pool = server, keyspace, pool

    def create(self, prefix, column_validation_classes=None, **kw):
        name = unique(prefix)
        sm = SystemManager(self.server)
        try:
            sm.create_column_family(self.keyspace, name,
                                    column_validation_classes=column_validation_classes, **kw)
        finally:
            sm.close()
        return name


@pytest.fixture(scope='session')
def families(server, keyspace, pool):
    return Families(server, keyspace, pool)
