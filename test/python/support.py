"""Shared pieces of the Python interop suite: fixture paths, derived
configurations, thriftd processes and raw Thrift clients.

thriftd is $THRIFTD_BIN when set (test/run-all sets it), else built once
per session from the repository.

THRIFTD_TEST_BACKEND=cassandra runs every thriftd on a real Cassandra node
of test/cassandra/cluster (the one for its configuration's partitioner)
instead of LevelDB, as internal/testenv does for the Go tests: each data
directory becomes a CQL keyspace prefix of its own, so a restart on the
same data finds it again.
"""

import atexit
import concurrent.futures
import hashlib
import json
import struct
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIXTURES = os.path.join(REPO, 'test', 'fixtures')
sys.path.insert(0, os.path.join(REPO, 'clients', 'python'))

from thrift.protocol import TBinaryProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from cassandra import Cassandra  # noqa: E402
import xml.etree.ElementTree as ElementTree  # noqa: E402

TEST_CONF = os.path.join(FIXTURES, 'storage-conf-0.6-test.xml')
DEFAULT_CONF = os.path.join(FIXTURES, 'storage-conf-0.6-default.xml')
BLOG_CONF = os.path.join(FIXTURES, 'storage-conf-bloggyappy.xml')
PASSWD = os.path.join(FIXTURES, 'passwd.properties')
ACCESS = os.path.join(FIXTURES, 'access.properties')

SIMPLE_AUTH = 'org.apache.cassandra.auth.SimpleAuthenticator'

CLUSTER_SCRIPT = os.path.join(REPO, 'test', 'cassandra', 'cluster')
LEVELDB_ONLY = os.path.join(REPO, 'test', 'cassandra', 'leveldb-only')


def backend():
    """The store thriftd runs on in this suite: 'leveldb' (default) or
    'cassandra', from THRIFTD_TEST_BACKEND."""
    b = os.environ.get('THRIFTD_TEST_BACKEND', '') or 'leveldb'
    if b not in ('leveldb', 'cassandra'):
        raise ValueError('THRIFTD_TEST_BACKEND=%r: want leveldb or cassandra' % b)
    return b


def leveldb_only(suite='python'):
    """The entries of suite ('python', or 'python19' for test/python19) of
    test/cassandra/leveldb-only: pytest node id (file::function) to the
    reason it does not run on Cassandra."""
    out = {}
    with open(LEVELDB_ONLY, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split(None, 2)
            if len(fields) == 3 and fields[0] == suite:
                out[fields[1]] = fields[2]
    return out


def cluster_for(partitioner):
    """The test cluster whose partitioner gives a 0.6 partitioner's row
    order (internal/testenv's clusterFor)."""
    short = partitioner.rsplit('.', 1)[-1]
    if short == 'RandomPartitioner':
        return 'random'
    if short in ('OrderPreservingPartitioner', 'CollatingOrderPreservingPartitioner',
                 'ByteOrderedPartitioner'):
        return 'byteordered'
    if short == 'Murmur3Partitioner':
        return 'murmur3'
    raise ValueError('no test cluster for partitioner %r' % partitioner)


_points = {}


def cassandra_points(partitioner):
    """Contact points of the running test cluster for partitioner, from
    $THRIFTD_CASSANDRA_<NAME> when set, else from the cluster script's
    start (which reuses a running node and locks against parallel
    starts). Raises, never skips, when no node can be had."""
    name = cluster_for(partitioner)
    env = os.environ.get('THRIFTD_CASSANDRA_' + name.upper())
    if env:
        return env
    if name not in _points:
        done = subprocess.run([CLUSTER_SCRIPT, 'start', name], capture_output=True,
                              text=True, timeout=900)
        if done.returncode != 0:
            raise AssertionError('cannot start the Cassandra test cluster %s:\n%s%s'
                                 % (name, done.stdout, done.stderr))
        _points[name] = done.stdout.strip().splitlines()[-1]
    return _points[name]


def partitioner_of(config):
    text = fixture_text(config)
    if not text.lstrip().startswith('<'):
        # A thriftd.yaml: its partitioner is its storage_conf's.
        for line in text.splitlines():
            if line.startswith('storage_conf:'):
                conf = line.split(':', 1)[1].strip().strip('"')
                return partitioner_of(os.path.join(os.path.dirname(config), conf))
        raise AssertionError('%s names no storage_conf: no test cluster can be chosen for it' % config)
    part = ElementTree.fromstring(text).findtext('Partitioner')
    if not part:
        raise AssertionError('%s has no Partitioner: no test cluster can be chosen for it' % config)
    return part.strip()


def cassandra_prefix():
    """A CQL keyspace prefix no other test uses (testenv.CassandraPrefix)."""
    return 't' + secrets.token_hex(5) + '_'


# Prefixes finished tests left, by (contact points, configuration digest):
# the next test on the same configuration reuses one, emptied, instead of
# paying for its schema again (seconds on Cassandra), as testenv does.
# Each is emptied in the background as soon as its test releases it, while
# the next test runs on another prefix of the pool: a configuration has up
# to POOL_PER_CONFIG prefixes, and a test waits for one's emptying only
# when all are being emptied.
POOL_PER_CONFIG = 2
_free_prefixes = {}
# How many prefixes each pool key has handed out in all.
_pool_sizes = {}
# The prefix standing for each data directory: (pool key, prefix).
_data_prefixes = {}
# Every prefix handed out, with its contact points, for drop_prefixes.
_all_prefixes = []
_helper = {}
_helper_lock = threading.Lock()
_emptier = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix='cqlprefix')


def cqlprefix(*args):
    """Runs test/cassandra/cqlprefix (built once per process) with args."""
    with _helper_lock:
        if 'bin' not in _helper:
            d = tempfile.mkdtemp(prefix='thriftd-cqlprefix-')
            atexit.register(shutil.rmtree, d, True)
            out = os.path.join(d, 'cqlprefix')
            subprocess.run(['go', 'build', '-o', out, './test/cassandra/cqlprefix'], cwd=REPO, check=True)
            _helper['bin'] = out
    done = subprocess.run([_helper['bin']] + list(args), capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError('cqlprefix %s failed:\n%s%s' % (' '.join(args), done.stdout, done.stderr))


def store_flags(config, data):
    """thriftd's store flags for config on data: none on LevelDB; on
    Cassandra, the cluster of config's partitioner and the prefix that
    stands for the data directory (the same data, the same prefix)."""
    if backend() != 'cassandra':
        return []
    points = cassandra_points(partitioner_of(config))
    path = os.path.abspath(data)
    if path not in _data_prefixes:
        with open(config, 'rb') as f:
            key = (points, hashlib.sha256(f.read()).hexdigest())
        free = _free_prefixes.setdefault(key, [])
        ready = [entry for entry in free if entry[1].done()]
        if ready or (free and _pool_sizes.get(key, 0) >= POOL_PER_CONFIG):
            # An emptied prefix, else the one released first.
            entry = ready[0] if ready else free[0]
            free.remove(entry)
            prefix, emptied = entry
            emptied.result()  # raises if the emptying failed
        else:
            prefix = cassandra_prefix()
            _all_prefixes.append((points, prefix))
            _pool_sizes[key] = _pool_sizes.get(key, 0) + 1
        _data_prefixes[path] = (key, prefix)
    prefix = _data_prefixes[path][1]
    assert re.match(r'^t[0-9a-f]{10}_$', prefix)
    return ['-cassandra', points, '-cassandra-prefix', prefix]


def release_prefix(data):
    """Returns the prefix of a data directory to the pool, once every
    thriftd on it has stopped, and starts emptying it."""
    entry = _data_prefixes.pop(os.path.abspath(data), None)
    if entry is not None:
        key, prefix = entry
        emptied = _emptier.submit(cqlprefix, 'truncate', key[0], prefix)
        _free_prefixes.setdefault(key, []).append((prefix, emptied))


def drop_prefixes():
    """Drops the keyspaces of every prefix handed out, unless
    THRIFTD_CASSANDRA_KEEP_KEYSPACES=1 (test/run-all deletes the nodes'
    data when it ends)."""
    for free in _free_prefixes.values():
        for _, emptied in free:
            emptied.result()
    if os.environ.get('THRIFTD_CASSANDRA_KEEP_KEYSPACES') == '1':
        return
    while _all_prefixes:
        points, prefix = _all_prefixes.pop()
        cqlprefix('drop', points, prefix)
    _free_prefixes.clear()
    _pool_sizes.clear()


def fixture_text(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def derived_config(directory, fixture, name, replace=(), insert_after=()):
    """Writes a copy of a fixture configuration with textual edits into
    directory and returns its path. replace is a list of (old, new) pairs,
    insert_after of (anchor, text); each anchor must occur exactly once so
    a changed fixture fails loudly instead of silently testing another
    configuration."""
    text = fixture_text(fixture)
    for old, new in replace:
        assert text.count(old) == 1, 'fixture %s: %r not found once' % (fixture, old)
        text = text.replace(old, new)
    for anchor, extra in insert_after:
        assert text.count(anchor) == 1, 'fixture %s: %r not found once' % (fixture, anchor)
        text = text.replace(anchor, anchor + extra)
    path = os.path.join(directory, name)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    return path


def with_authenticator(directory, fixture, authenticator=SIMPLE_AUTH):
    """A copy of fixture whose Authenticator is authenticator (the element
    is added when the fixture has none)."""
    text = fixture_text(fixture)
    name = 'auth-' + os.path.basename(fixture)
    if '<Authenticator>' in text:
        old = text[text.index('<Authenticator>'):text.index('</Authenticator>') + len('</Authenticator>')]
        return derived_config(directory, fixture, name,
                              replace=[(old, '<Authenticator>%s</Authenticator>' % authenticator)])
    return derived_config(directory, fixture, name, insert_after=[
        ('</ClusterName>', '\n   <Authenticator>%s</Authenticator>' % authenticator)])


_built = {}


def thriftd_binary(tmp_root):
    path = os.environ.get('THRIFTD_BIN')
    if path:
        return path
    if 'bin' not in _built:
        out = os.path.join(tmp_root, 'thriftd')
        subprocess.run(['go', 'build', '-o', out, './cmd/thriftd'], cwd=REPO, check=True)
        _built['bin'] = out
    return _built['bin']


class Thriftd(object):
    """One thriftd process. start() waits for its "thriftd is serving" log
    line and reads the address from it."""

    def __init__(self, binary, config, data, extra=(), workdir=None, api='0.6'):
        self.binary = binary
        self.config = config
        self.data = data
        self.extra = list(extra)
        # The suites here are 0.6 clients, framed as well as unframed, as
        # against a 0.6 server configured with ThriftFramedTransport; the
        # 19.x suites pass api='auto', or None to leave it to the
        # configuration.
        self.api = api
        self.workdir = workdir or data
        self.proc = None
        self.addr = None
        self.serving = None  # the "thriftd is serving" record
        self.logs = []
        self._lock = threading.Lock()

    @property
    def host(self):
        return self.addr.rsplit(':', 1)[0]

    @property
    def port(self):
        return int(self.addr.rsplit(':', 1)[1])

    def start(self, timeout=30):
        store = store_flags(self.config, self.data)
        # On Cassandra the prefix stands for the data directory: thriftd
        # refuses -data beside -cassandra.
        data = [] if store else ['-data', self.data]
        args = [self.binary, '-config', self.config, '-listen', '127.0.0.1:0'] + data + \
            ['-log-format', 'json', '-admin', '127.0.0.1:0'] + (['-api', self.api] if self.api else []) + \
            store + self.extra
        os.makedirs(self.workdir, exist_ok=True)
        self.proc = subprocess.Popen(args, cwd=self.workdir, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        found = threading.Event()

        def drain(proc):
            for raw in proc.stderr:
                line = raw.decode('utf-8', 'replace').rstrip('\n')
                with self._lock:
                    self.logs.append(line)
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get('msg') == 'thriftd is serving' and not found.is_set():
                    self.serving = record
                    self.addr = record['listen']
                    found.set()
            found.set()

        threading.Thread(target=drain, args=(self.proc,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while not found.wait(0.05):
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError('thriftd did not start in %ss:\n%s' % (timeout, self.log_text()))
        if self.addr is None:
            self.proc.wait(timeout=10)
            raise AssertionError('thriftd exited (%s) before serving:\n%s'
                                 % (self.proc.returncode, self.log_text()))
        return self

    def log_text(self):
        with self._lock:
            return '\n'.join(self.logs)

    def stop(self, timeout=30):
        """SIGTERM, then wait; returns the exit status."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError('thriftd did not stop within %ss of SIGTERM' % timeout)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def connect(self, framed=False, strict_write=True, timeout=10):
        return connect_raw(self.host, self.port, framed=framed,
                           strict_write=strict_write, timeout=timeout)


class RawClient(object):
    """A generated Cassandra.Client plus its transport."""

    def __init__(self, client, transport):
        self.client = client
        self.transport = transport

    def __getattr__(self, name):
        return getattr(self.client, name)

    def close(self):
        self.transport.close()


def connect_raw(host, port, framed=False, strict_write=True, timeout=10):
    sock = TSocket.TSocket(host, port)
    sock.setTimeout(timeout * 1000)
    transport = TTransport.TFramedTransport(sock) if framed else TTransport.TBufferedTransport(sock)
    protocol = TBinaryProtocol.TBinaryProtocol(transport, strictRead=False, strictWrite=strict_write)
    transport.open()
    return RawClient(Cassandra.Client(protocol), transport)


class Launcher(object):
    """Starts thriftd processes for one test and stops them after it."""

    def __init__(self, binary, tmp_path):
        self.binary = binary
        self.tmp_path = tmp_path
        self.nodes = []
        self._count = 0
        self.clients = []

    def start(self, config=TEST_CONF, extra=(), data=None):
        self._count += 1
        if data is None:
            data = str(self.tmp_path / ('data%d' % self._count))
        node = Thriftd(self.binary, config, data, extra,
                       workdir=str(self.tmp_path / ('work%d' % self._count)))
        self.nodes.append(node)
        return node.start()

    def connect(self, node, **kw):
        c = node.connect(**kw)
        self.clients.append(c)
        return c

    def close(self):
        for c in self.clients:
            try:
                c.close()
            except Exception:
                pass
        for n in self.nodes:
            n.stop()
        for n in self.nodes:
            release_prefix(n.data)


def i64(n):
    """A LongType column name: 8 bytes, big-endian, signed."""
    return struct.pack('>q', n)
