"""Fixtures of the 19.x Python suite.

One thriftd per session (the real binary, the stock 0.6 configuration:
RandomPartitioner, Keyspace1), on LevelDB or, with
THRIFTD_TEST_BACKEND=cassandra, on the test cluster; or, with
THRIFTD19_TARGET=host:port, an existing 19.x server (the real Cassandra
1.2.19 of test/cassandra/reference), on which the suite first creates a
keyspace of the same shape as Keyspace1 under a name of its own.

Tests that need a piece of thriftd still being built carry
@pytest.mark.needs(PIECE); against thriftd they are expected to fail
(xfail, strict: once the piece works they fail as XPASS, and the mark is to
be removed), against another server they run as usual."""

import tempfile

import pytest

from support19 import Client, target, unique  # first: puts test/python on the path
from support import DEFAULT_CONF, Thriftd, backend, drop_prefixes, leveldb_only, thriftd_binary
from cassandra19.ttypes import CfDef, KsDef

# What thriftd lacks today, by the name tests give it in needs(...), and
# for which stores: the reason is the xfail's.
MISSING = {
}


def pytest_configure(config):
    config.addinivalue_line('markers', 'needs(piece): needs a piece of thriftd named in conftest.MISSING')


def pytest_collection_modifyitems(config, items):
    only = leveldb_only('python19') if backend() == 'cassandra' and not target() else {}
    for item in items:
        if not target():
            for mark in item.iter_markers('needs'):
                stores, reason = MISSING[mark.args[0]]
                if backend() in stores:
                    item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
        nodeid = item.nodeid.split('test/python19/', 1)[-1].split('[', 1)[0]
        if nodeid in only:
            item.add_marker(pytest.mark.skip(
                reason='LevelDB only (test/cassandra/leveldb-only): ' + only[nodeid]))


@pytest.fixture(scope='session')
def session_tmp():
    with tempfile.TemporaryDirectory(prefix='thriftd-py19-') as d:
        yield d


@pytest.fixture(scope='session')
def binary(session_tmp):
    yield thriftd_binary(session_tmp)
    drop_prefixes()


class Server(object):
    """Where the suite's 19.x server listens, and the keyspace of the
    shape of the stock configuration's Keyspace1 it serves."""

    def __init__(self, host, port, keyspace, thriftd=None):
        self.host, self.port, self.keyspace, self.thriftd = host, port, keyspace, thriftd

    def connect(self, keyspace=None, **kw):
        return Client(self.host, self.port, keyspace=keyspace, **kw)


# Keyspace1 of test/fixtures/storage-conf-0.6-default.xml, as 19.x CfDefs.
def keyspace1_cfs(ks):
    return [
        CfDef(ks, 'Standard1', comparator_type='BytesType'),
        CfDef(ks, 'Standard2', comparator_type='UTF8Type'),
        CfDef(ks, 'StandardByUUID1', comparator_type='TimeUUIDType'),
        CfDef(ks, 'Super1', column_type='Super', comparator_type='BytesType', subcomparator_type='BytesType'),
        CfDef(ks, 'Super2', column_type='Super', comparator_type='UTF8Type', subcomparator_type='UTF8Type'),
    ]


@pytest.fixture(scope='session')
def server(binary, session_tmp):
    t = target()
    if t:
        host, port = t.rsplit(':', 1)
        ks = unique('py19_')
        c = Client(host, int(port))
        c.system_add_keyspace(KsDef(ks, 'org.apache.cassandra.locator.SimpleStrategy',
                                    {'replication_factor': '1'}, cf_defs=keyspace1_cfs(ks)))
        c.close()
        yield Server(host, int(port), ks)
        c = Client(host, int(port))
        c.system_drop_keyspace(ks)
        c.close()
        return
    node = Thriftd(binary, DEFAULT_CONF, session_tmp + '/data', api='auto',
                   workdir=session_tmp + '/work').start()
    yield Server(node.host, node.port, 'Keyspace1', node)
    node.stop()


@pytest.fixture
def ks(server):
    return server.keyspace


@pytest.fixture
def cx(server):
    """A framed 19.x client, its keyspace set to the suite's Keyspace1."""
    c = server.connect(server.keyspace)
    yield c
    c.close()


@pytest.fixture
def fresh(server):
    """A framed 19.x client without a keyspace."""
    c = server.connect()
    yield c
    c.close()


@pytest.fixture
def new_ks(server):
    """The name of a keyspace the test creates; dropped after it, if it
    was created."""
    name = unique('py19ks_')
    yield name
    c = server.connect()
    try:
        if name in [k.name for k in c.describe_keyspaces()]:
            c.system_drop_keyspace(name)
    except Exception:
        pass
    finally:
        c.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)


@pytest.fixture(autouse=True)
def server_log_on_failure(request, server):
    """Shows what the suite's thriftd logged during a test that failed."""
    node = server.thriftd
    before = len(node.logs) if node else 0
    yield
    rep = getattr(request.node, 'rep_call', None)
    if node and rep is not None and rep.failed:
        with node._lock:
            lines = node.logs[before:]
        rep.sections.append(('thriftd log', '\n'.join(lines)))
