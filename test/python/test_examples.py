"""The Python example runs end to end against thriftd on the blog
configuration and checks its own output."""

import filecmp
import os
import subprocess
import sys

import pytest

from support import BLOG_CONF, REPO

EXAMPLE = os.path.join(REPO, 'clients', 'python', 'examples', 'bloggyappy.py')


@pytest.mark.parametrize('framed', [False, True], ids=['unframed', 'framed'])
def test_bloggyappy(launcher, framed):
    node = launcher.start(BLOG_CONF)
    args = [sys.executable, EXAMPLE, '--server', node.addr] + (['--framed'] if framed else [])
    for run in (1, 2):  # a second run starts from a clean slate again
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.rstrip().endswith('all checks passed'), done.stdout
        assert '10 latest posts tagged "cassandra":' in done.stdout
        assert '3 comments:' in done.stdout


def test_shipped_blog_configuration_is_the_fixture():
    # Users start thriftd on the copy in clients/; it must not drift.
    shipped = os.path.join(REPO, 'clients', 'storage-conf-bloggyappy.xml')
    assert filecmp.cmp(shipped, BLOG_CONF, shallow=False)
