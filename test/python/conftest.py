"""Fixtures of the Python interop suite: real thriftd processes on free
loopback ports, each on a fresh data directory, and Thrift clients for them."""

import tempfile

import pytest

from support import (DEFAULT_CONF, TEST_CONF, Launcher, backend, drop_prefixes, leveldb_only,
                     thriftd_binary)


@pytest.fixture(scope='session')
def session_tmp():
    with tempfile.TemporaryDirectory(prefix='thriftd-py-') as d:
        yield d


@pytest.fixture(scope='session')
def binary(session_tmp):
    yield thriftd_binary(session_tmp)
    # On the Cassandra backend, the keyspaces of every prefix the session
    # used (a no-op on LevelDB).
    drop_prefixes()


@pytest.fixture
def launcher(binary, tmp_path):
    lau = Launcher(binary, tmp_path)
    yield lau
    lau.close()


@pytest.fixture
def node(launcher):
    """thriftd on the 0.6 system-test configuration
    (CollatingOrderPreservingPartitioner, Keyspace1..4)."""
    return launcher.start(TEST_CONF)


@pytest.fixture
def client(launcher, node):
    """An unframed raw Thrift client of node."""
    return launcher.connect(node)


@pytest.fixture
def default_node(launcher):
    """thriftd on the stock 0.6 configuration (RandomPartitioner)."""
    return launcher.start(DEFAULT_CONF)


@pytest.fixture
def default_client(launcher, default_node):
    return launcher.connect(default_node)


def pytest_collection_modifyitems(config, items):
    """On the Cassandra backend, skip the tests test/cassandra/leveldb-only
    names, with its reason."""
    if backend() != 'cassandra':
        return
    only = leveldb_only()
    for item in items:
        nodeid = item.nodeid.split('test/python/', 1)[-1].split('[', 1)[0]
        if nodeid in only:
            item.add_marker(pytest.mark.skip(
                reason='LevelDB only (test/cassandra/leveldb-only): ' + only[nodeid]))
