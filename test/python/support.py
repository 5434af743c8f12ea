"""Shared pieces of the Python interop suite: fixture paths, derived
configurations, thriftd processes and raw Thrift clients.

thriftd is $THRIFTD_BIN when set (test/run-all sets it), else built once
per session from the repository.
"""

import json
import struct
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIXTURES = os.path.abspath(os.path.join(REPO, '..', 'shared', 'fixtures'))
sys.path.insert(0, os.path.join(REPO, 'clients', 'python'))

from thrift.protocol import TBinaryProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from cassandra import Cassandra  # noqa: E402

TEST_CONF = os.path.join(FIXTURES, 'storage-conf-0.6-test.xml')
DEFAULT_CONF = os.path.join(FIXTURES, 'storage-conf-0.6-default.xml')
BLOG_CONF = os.path.join(FIXTURES, 'storage-conf-bloggyappy.xml')
PASSWD = os.path.join(FIXTURES, 'passwd.properties')
ACCESS = os.path.join(FIXTURES, 'access.properties')

SIMPLE_AUTH = 'org.apache.cassandra.auth.SimpleAuthenticator'


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

    def __init__(self, binary, config, data, extra=(), workdir=None):
        self.binary = binary
        self.config = config
        self.data = data
        self.extra = list(extra)
        self.workdir = workdir or data
        self.proc = None
        self.addr = None
        self.logs = []
        self._lock = threading.Lock()

    @property
    def host(self):
        return self.addr.rsplit(':', 1)[0]

    @property
    def port(self):
        return int(self.addr.rsplit(':', 1)[1])

    def start(self, timeout=30):
        args = [self.binary, '-config', self.config, '-listen', '127.0.0.1:0',
                '-data', self.data, '-log-format', 'json', '-admin', '127.0.0.1:0'] + self.extra
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


def i64(n):
    """A LongType column name: 8 bytes, big-endian, signed."""
    return struct.pack('>q', n)
