"""login and SimpleAuthenticator with the fixture property files (spec 8.4
and 16.7)."""

import hashlib
import os
import shutil

import pytest

from cassandra.ttypes import (
    AuthenticationException, AuthenticationRequest, AuthorizationException,
    ColumnParent, ColumnPath, ConsistencyLevel, InvalidRequestException,
    KeyRange, Mutation, ColumnOrSuperColumn, Column, SlicePredicate, SliceRange)

from support import ACCESS, BLOG_CONF, PASSWD, TEST_CONF, with_authenticator

ONE = ConsistencyLevel.ONE
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
LOGIN_REQUIRED = 'Login is required before any other API calls'


def creds(**kw):
    return AuthenticationRequest(credentials=kw)


@pytest.fixture
def auth_node(launcher, tmp_path):
    config = with_authenticator(str(tmp_path), TEST_CONF)
    return launcher.start(config, extra=['-passwd', PASSWD, '-access', ACCESS])


@pytest.fixture
def auth_client(launcher, auth_node):
    return launcher.connect(auth_node)


def data_calls(c, ks='Keyspace1'):
    """One call of every data method, each needing a login; in this order
    each succeeds once logged in."""
    path = ColumnPath('Standard1', column=b'c')
    parent = ColumnParent('Standard1')
    return [
        lambda: c.insert(ks, 'k', path, b'v', 0, ONE),
        lambda: c.get(ks, 'k', path, ONE),
        lambda: c.get_slice(ks, 'k', parent, ALL, ONE),
        lambda: c.multiget(ks, ['k'], path, ONE),
        lambda: c.multiget_slice(ks, ['k'], parent, ALL, ONE),
        lambda: c.get_count(ks, 'k', parent, ONE),
        lambda: c.get_range_slice(ks, parent, ALL, '', '', 10, ONE),
        lambda: c.get_range_slices(ks, parent, ALL, KeyRange(start_key='', end_key=''), ONE),
        lambda: c.batch_insert(ks, 'k', {'Standard1': [ColumnOrSuperColumn(Column(b'c', b'v', 0))]}, ONE),
        lambda: c.batch_mutate(ks, {'k': {'Standard1': [Mutation(ColumnOrSuperColumn(Column(b'c', b'v', 0)))]}},
                               ONE),
        lambda: c.remove(ks, 'k', path, 0, ONE),
    ]


def test_every_data_call_needs_a_login(auth_client):
    for call in data_calls(auth_client):
        with pytest.raises(InvalidRequestException) as e:
            call()
        assert e.value.why == LOGIN_REQUIRED


def test_meta_calls_need_no_login(auth_client):
    assert auth_client.describe_version() == '2.2.0'
    assert 'Keyspace1' in auth_client.describe_keyspaces()
    assert auth_client.describe_cluster_name() == 'Test Cluster'
    assert 'Standard1' in auth_client.describe_keyspace('Keyspace1')
    assert auth_client.describe_ring('Keyspace1')[0].endpoints == ['127.0.0.1']
    assert auth_client.get_string_property('version') == '2.2.0'
    assert 'Keyspace1' in auth_client.get_string_list_property('keyspaces')
    auth_client.describe_partitioner()


def test_login_opens_every_keyspace_for_the_connection(auth_client):
    auth_client.login('Keyspace1', creds(username='alice', password='wonderland7'))
    for call in data_calls(auth_client):
        call()
    # After login, calls to other keyspaces are not checked again.
    for call in data_calls(auth_client, 'Keyspace2'):
        call()
    # Logging in again is harmless.
    auth_client.login('Keyspace1', creds(username='alice', password='wonderland7'))


def test_login_is_per_connection(launcher, auth_node, auth_client):
    auth_client.login('Keyspace1', creds(username='alice', password='wonderland7'))
    auth_client.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)
    other = launcher.connect(auth_node, framed=True)
    with pytest.raises(InvalidRequestException) as e:
        other.get('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), ONE)
    assert e.value.why == LOGIN_REQUIRED
    # A new connection starts logged out.
    auth_client.close()
    again = launcher.connect(auth_node)
    with pytest.raises(InvalidRequestException) as e:
        again.get('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), ONE)
    assert e.value.why == LOGIN_REQUIRED


def test_user_name_with_a_space(auth_client):
    auth_client.login('Keyspace1', creds(username='Grace Hopper', password='cobol1959'))
    auth_client.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)


def test_wrong_password(auth_client):
    with pytest.raises(AuthenticationException) as e:
        auth_client.login('Keyspace1', creds(username='alice', password='wonderland8'))
    assert e.value.why == 'Given password in password mode PLAIN could not be validated for user alice'
    with pytest.raises(InvalidRequestException) as e:
        auth_client.get_count('Keyspace1', 'k', ColumnParent('Standard1'), ONE)
    assert e.value.why == LOGIN_REQUIRED


def test_unknown_user(auth_client):
    # 0.6 wrapped this in an internal error; thriftd raises the intended
    # AuthenticationException (spec 16.7).
    with pytest.raises(AuthenticationException) as e:
        auth_client.login('Keyspace1', creds(username='mallory', password='x'))
    assert e.value.why == 'Given password in password mode PLAIN could not be validated for user mallory'


def test_user_not_allowed_in_keyspace(auth_client):
    with pytest.raises(AuthorizationException) as e:
        auth_client.login('Keyspace1', creds(username='bob', password='builder42'))
    assert e.value.why == 'User bob could not be authorized to use keyspace Keyspace1'
    with pytest.raises(InvalidRequestException) as e:
        auth_client.get_count('Keyspace1', 'k', ColumnParent('Standard1'), ONE)
    assert e.value.why == LOGIN_REQUIRED


def test_keyspace_missing_from_access_file(auth_client):
    # 0.6 wrapped this in an internal error too (spec 16.7).
    with pytest.raises(AuthorizationException) as e:
        auth_client.login('Keyspace2', creds(username='alice', password='wonderland7'))
    assert e.value.why == 'User alice could not be authorized to use keyspace Keyspace2'


def test_login_does_not_check_the_keyspace_exists(auth_client):
    # BloggyAppy is in access.properties but not in this configuration.
    auth_client.login('BloggyAppy', creds(username='bob', password='builder42'))
    auth_client.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)


def test_missing_credentials(auth_client):
    with pytest.raises(AuthenticationException) as e:
        auth_client.login('Keyspace1', creds(password='wonderland7'))
    assert e.value.why == "Authentication request was missing the required key 'username'"
    with pytest.raises(AuthenticationException) as e:
        auth_client.login('Keyspace1', creds(username='alice'))
    assert e.value.why == "Authentication request was missing the required key 'password'"


def test_md5_password_mode(launcher, tmp_path):
    passwd = tmp_path / 'passwd-md5.properties'
    passwd.write_text('alice=%s\nGrace\\ Hopper=%s\n' % (
        hashlib.md5(b'wonderland7').hexdigest(), hashlib.md5(b'cobol1959').hexdigest()))
    config = with_authenticator(str(tmp_path), TEST_CONF)
    node = launcher.start(config, extra=['-passwd', str(passwd), '-access', ACCESS, '-passwd-mode', 'MD5'])
    c = launcher.connect(node)
    with pytest.raises(AuthenticationException) as e:
        c.login('Keyspace1', creds(username='alice', password=hashlib.md5(b'wonderland7').hexdigest()))
    assert e.value.why == 'Given password in password mode MD5 could not be validated for user alice'
    c.login('Keyspace1', creds(username='Grace Hopper', password='cobol1959'))
    c.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)


def test_property_files_default_to_the_configuration_directory(launcher, tmp_path):
    conf_dir = tmp_path / 'conf'
    conf_dir.mkdir()
    config = with_authenticator(str(conf_dir), BLOG_CONF)
    shutil.copy(PASSWD, str(conf_dir / 'passwd.properties'))
    shutil.copy(ACCESS, str(conf_dir / 'access.properties'))
    c = launcher.connect(launcher.start(config))
    with pytest.raises(InvalidRequestException):
        c.get_count('BloggyAppy', 'k', ColumnParent('Authors'), ONE)
    c.login('BloggyAppy', creds(username='bob', password='builder42'))
    assert c.get_count('BloggyAppy', 'k', ColumnParent('Authors'), ONE) == 0


def test_missing_property_file_stops_start_up(launcher, tmp_path):
    config = with_authenticator(str(tmp_path), TEST_CONF)
    missing = os.path.join(str(tmp_path), 'no-such-passwd.properties')
    with pytest.raises(AssertionError) as e:
        launcher.start(config, extra=['-passwd', missing, '-access', ACCESS])
    assert 'before serving' in str(e.value)
    assert 'no-such-passwd.properties' in launcher.nodes[-1].log_text()


def test_allow_all_authenticator_accepts_any_login(client):
    client.insert('Keyspace1', 'k', ColumnPath('Standard1', column=b'c'), b'v', 0, ONE)
    client.login('Keyspace1', creds(username='nobody', password='nothing'))
    client.login('Nope', creds())
    assert client.get_count('Keyspace1', 'k', ColumnParent('Standard1'), ONE) == 1
