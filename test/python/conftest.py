"""Fixtures of the Python interop suite: real thriftd processes on free
loopback ports, each on a fresh data directory, and Thrift clients for them."""

import tempfile

import pytest

from support import DEFAULT_CONF, TEST_CONF, Launcher, thriftd_binary


@pytest.fixture(scope='session')
def session_tmp():
    with tempfile.TemporaryDirectory(prefix='thriftd-py-') as d:
        yield d


@pytest.fixture(scope='session')
def binary(session_tmp):
    return thriftd_binary(session_tmp)


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
