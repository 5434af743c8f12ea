"""TLS on the Thrift port (docs/security.md), with thrift's own TSSLSocket
as a Python client of a secured Cassandra 2.x/3.11 connects: a thriftd of
this test serving client_encryption_options from a thriftd.yaml, a TLS
port beside the plain one. The certificates are made by openssl at run
time (PEM, and PKCS12 as `openssl pkcs12 -export` writes it); none is kept
in the repository."""

import json
import os
import ssl
import subprocess
import time

import pytest
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSSLSocket, TTransport

from support19 import ONE, Client
from support import DEFAULT_CONF, Thriftd, connect_raw, release_prefix
from cassandra import Cassandra as Cassandra06
from cassandra19.ttypes import Column, ColumnParent, ColumnPath

PASSWORD = 'cassandra'
V06, V19 = '2.2.0', '19.39.0'

def openssl(*args, cwd):
    subprocess.run(['openssl'] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope='module')
def certs(tmp_path_factory):
    """A throwaway authority, a server certificate for localhost and
    127.0.0.1 and a client certificate, as PEM and PKCS12 files."""
    d = str(tmp_path_factory.mktemp('certs'))
    ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
    openssl('req', '-x509', *ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
            '-subj', '/CN=thriftd test CA', cwd=d)
    for name, ext in [('server', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'),
                      ('client', 'extendedKeyUsage=clientAuth\n')]:
        with open(os.path.join(d, name + '.ext'), 'w') as f:
            f.write(ext)
        openssl('req', *ec, '-keyout', name + '.key', '-out', name + '.csr', '-subj', '/CN=' + name, cwd=d)
        openssl('x509', '-req', '-in', name + '.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
                '-days', '2', '-extfile', name + '.ext', '-out', name + '.crt', cwd=d)
        openssl('pkcs12', '-export', '-inkey', name + '.key', '-in', name + '.crt', '-certfile', 'ca.pem',
                '-out', name + '.p12', '-passout', 'pass:' + PASSWORD, cwd=d)
        with open(os.path.join(d, name + '.pem'), 'w') as out:
            for part in (name + '.crt', name + '.key'):
                with open(os.path.join(d, part)) as f:
                    out.write(f.read())
    # A truststore as keytool's PKCS12 trusted-certificate entries are
    # not what openssl writes; the authority's PEM serves as truststore.
    return d


@pytest.fixture
def start(binary, tmp_path, certs):
    nodes = []

    def start(section):
        n = len(nodes)
        conf = os.path.join(str(tmp_path), 'thriftd%d.yaml' % n)
        with open(conf, 'w', encoding='utf-8') as f:
            f.write('storage_conf: %s\ntls_listen: 127.0.0.1:0\nclient_encryption_options:\n  enabled: true\n' % DEFAULT_CONF)
            for k, v in section.items():
                f.write('  %s: %s\n' % (k, json.dumps(v)))
        node = Thriftd(binary, conf, str(tmp_path / ('data%d' % n)), api='auto',
                       workdir=str(tmp_path / ('work%d' % n)))
        nodes.append(node)
        node.start()
        node.tls_port = int(node.serving['tls_listen'].rsplit(':', 1)[1])
        return node
    yield start
    for node in nodes:
        node.stop()
        release_prefix(node.data)


def ssl_socket(certs, port, client_cert=False):
    kw = {}
    if client_cert:
        kw = dict(certfile=os.path.join(certs, 'client.crt'), keyfile=os.path.join(certs, 'client.key'))
    sock = TSSLSocket.TSSLSocket('127.0.0.1', port, cert_reqs=ssl.CERT_REQUIRED,
                                 ca_certs=os.path.join(certs, 'ca.pem'), server_hostname='localhost', **kw)
    sock.setTimeout(10000)
    return sock


def write_and_read(client, key):
    client.insert(key, ColumnParent('Standard1'), Column(b'c', b'v-' + key, 1), ONE)
    got = client.get(key, ColumnPath('Standard1', column=b'c'), ONE)
    assert got.column.value == b'v-' + key


def refused(node, certs, port, **kw):
    """Whether a call over TLS fails (TLS 1.3 reports a refused client
    certificate on the first read, not in the handshake)."""
    try:
        c = Client('127.0.0.1', port, framed=True, sock=ssl_socket(certs, port, **kw))
    except TTransport.TTransportException:
        return True
    try:
        c.describe_version()
        return False
    except (TTransport.TTransportException, ssl.SSLError, OSError, EOFError):
        return True
    finally:
        c.close()


def refusal_lines(node):
    return [json.loads(l) for l in node.log_text().splitlines()
            if '"connection refused: TLS handshake failed"' in l]


def wait_for(cond, what, timeout=5):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, 'timed out waiting for ' + what
        time.sleep(0.05)


def test_tls_port_beside_plain_pem(start, certs):
    node = start({'keystore': os.path.join(certs, 'server.pem')})
    assert node.serving['tls'] == 'off' and node.serving['tls_listen_mode'] == 'on'
    # 19.x, framed, over TLS; a keyspace per connection, as pycassa does.
    c = Client('127.0.0.1', node.tls_port, keyspace='Keyspace1', sock=ssl_socket(certs, node.tls_port))
    try:
        assert c.describe_version() == V19
        write_and_read(c, b'tls-19')
    finally:
        c.close()
    # 0.6, unframed, over TLS: the API is told per connection as on the
    # plain port.
    sock = ssl_socket(certs, node.tls_port)
    t = TTransport.TBufferedTransport(sock)
    t.open()
    try:
        c06 = Cassandra06.Client(TBinaryProtocol.TBinaryProtocol(t))
        assert c06.describe_version() == V06
        assert c06.get_string_property('cluster name') == 'Test Cluster'
    finally:
        t.close()
    # The plain port still serves, and sees what was written over TLS.
    plain = Client(node.host, node.port, keyspace='Keyspace1')
    try:
        assert plain.get(b'tls-19', ColumnPath('Standard1', column=b'c'), ONE).column.value == b'v-tls-19'
    finally:
        plain.close()


def test_plain_client_on_tls_port_is_refused_and_logged_once(start, certs):
    node = start({'keystore': os.path.join(certs, 'server.p12'), 'keystore_password': PASSWORD,
                  'store_type': 'PKCS12'})
    held = Client('127.0.0.1', node.tls_port, keyspace='Keyspace1', sock=ssl_socket(certs, node.tls_port))
    try:
        for framed in (True, False, True, False):
            with pytest.raises((TTransport.TTransportException, EOFError, OSError)):
                c = connect_raw('127.0.0.1', node.tls_port, framed=framed)
                try:
                    c.describe_version()
                finally:
                    c.close()
        wait_for(lambda: refusal_lines(node), 'the refusal to be logged')
        time.sleep(0.3)
        lines = refusal_lines(node)
        assert len(lines) == 1, lines
        assert lines[0]['peer'].startswith('127.0.0.1:') and lines[0]['level'] == 'WARN'
        # The address and the cause; nothing of the configuration.
        assert PASSWORD not in json.dumps(lines[0]) and 'keystore' not in json.dumps(lines[0])
        # The TLS connection opened before carries on.
        write_and_read(held, b'after-refusals')
    finally:
        held.close()


def test_client_certificate_required(start, certs):
    node = start({'keystore': os.path.join(certs, 'server.p12'), 'keystore_password': PASSWORD,
                  'require_client_auth': True, 'truststore': os.path.join(certs, 'ca.pem')})
    c = Client('127.0.0.1', node.tls_port, keyspace='Keyspace1',
               sock=ssl_socket(certs, node.tls_port, client_cert=True))
    try:
        write_and_read(c, b'with-client-cert')
    finally:
        c.close()
    assert refused(node, certs, node.tls_port)
    wait_for(lambda: refusal_lines(node), 'the refusal to be logged')
    assert 'certificate' in refusal_lines(node)[0]['err']


def test_tls_client_on_plain_port_is_closed_and_logged(start, certs):
    node = start({'keystore': os.path.join(certs, 'server.pem')})
    plain = Client(node.host, node.port, keyspace='Keyspace1')
    try:
        assert refused(node, certs, node.port)
        lines = []

        def logged():
            lines[:] = [json.loads(l) for l in node.log_text().splitlines()
                        if '"tls client on a plain port"' in l]
            return lines
        wait_for(logged, 'the TLS client on the plain port to be logged')
        assert len(lines) == 1, lines
        line = lines[0]
        assert line['level'] == 'WARN' and line['msg'] == 'connection closed', line
        assert line['peer'].startswith('127.0.0.1:'), line
        assert 'began a TLS handshake on a port that speaks plain Thrift' in line['err'], line
        # The plain connection opened before, and the TLS port, carry on.
        write_and_read(plain, b'after-tls-on-plain')
        c = Client('127.0.0.1', node.tls_port, keyspace='Keyspace1', sock=ssl_socket(certs, node.tls_port))
        try:
            write_and_read(c, b'tls-after-tls-on-plain')
        finally:
            c.close()
    finally:
        plain.close()
