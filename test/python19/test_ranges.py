"""Range reads as pycassa 1.x makes them (ColumnFamily.get_range): by keys
and by tokens, paged by restarting at the last key seen; get_paged_slice;
and the ring calls such readers use to split the work."""

import hashlib

import pytest

from cassandra19.ttypes import (
    Column, ColumnParent, InvalidRequestException, KeyRange, SlicePredicate, SliceRange)

from support19 import ONE, unique

ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
RANDOM = 'org.apache.cassandra.dht.RandomPartitioner'


def token(key):
    """RandomPartitioner's token of a key: abs of the MD5 as a signed
    128-bit integer."""
    return abs(int.from_bytes(hashlib.md5(key).digest(), 'big', signed=True))


@pytest.fixture(scope='module')
def rows(server):
    """25 rows of Standard1 with keys of this module's own, in token order.
    Standard1 is shared with the other modules, so the tests look only at
    these keys among what a range returns."""
    c = server.connect(server.keyspace)
    tag = unique('rg')
    keys = [('%s-%02d' % (tag, i)).encode() for i in range(25)]
    for k in keys:
        for n in (b'a', b'b', b'c'):
            c.insert(k, ColumnParent('Standard1'), Column(n, k + n, 1), ONE)
    c.close()
    return sorted(keys, key=token)


def mine(slices, keys):
    return [s.key for s in slices if s.key in set(keys)]


def test_partitioner_is_random(cx):
    assert cx.describe_partitioner() == RANDOM


def test_every_row_once_in_token_order(cx, rows):
    got = cx.get_range_slices(ColumnParent('Standard1'), ALL, KeyRange(start_key=b'', end_key=b'', count=100000), ONE)
    toks = [token(s.key) for s in got]
    assert toks == sorted(toks)
    assert mine(got, rows) == rows
    one = [s for s in got if s.key == rows[0]][0]
    assert [c.column.name for c in one.columns] == [b'a', b'b', b'c']


def test_paging_by_keys_as_pycassa_does(cx, rows):
    # pycassa's get_range: ask for buffer_size rows from the last key seen,
    # dropping the first row of every page after the first.
    seen, start = [], b''
    while True:
        page = cx.get_range_slices(ColumnParent('Standard1'), SlicePredicate(column_names=[b'b']),
                                   KeyRange(start_key=start, end_key=b'', count=7), ONE)
        if seen:
            assert page[0].key == start
            page = page[1:]
        seen.extend(s.key for s in page)
        if len(page) < 6:
            break
        start = seen[-1]
    assert mine([type('S', (), {'key': k}) for k in seen], rows) == rows
    assert len(seen) == len(set(seen))


def test_range_by_tokens(cx, rows):
    # Tokens are exclusive at the start, inclusive at the end.
    lo, hi = token(rows[3]), token(rows[10])
    got = cx.get_range_slices(ColumnParent('Standard1'), ALL,
                              KeyRange(start_token=str(lo), end_token=str(hi), count=1000), ONE)
    assert mine(got, rows) == rows[4:11]
    # Starting at a key, ending at a token.
    got = cx.get_range_slices(ColumnParent('Standard1'), ALL,
                              KeyRange(start_key=rows[3], end_token=str(hi), count=1000), ONE)
    assert mine(got, rows) == rows[3:11]


def test_get_paged_slice_walks_rows_and_columns(cx, rows):
    # From the middle of rows[5]: its columns from b, then whole rows.
    got = cx.get_paged_slice('Standard1', KeyRange(start_key=rows[5], end_key=b'', count=4), b'b', ONE)
    assert [s.key for s in got][:1] == [rows[5]]
    assert [c.column.name for c in got[0].columns] == [b'b', b'c']
    assert sum(len(s.columns) for s in got) >= 4


def test_bad_ranges_get_the_real_servers_message(cx):
    with pytest.raises(InvalidRequestException) as e:
        cx.get_range_slices(ColumnParent('Standard1'), ALL, KeyRange(start_key=b'a', start_token='1', end_key=b'', count=10), ONE)
    assert e.value.why == 'exactly one each of {start key, start token} and {end key, end token} must be specified'
    with pytest.raises(InvalidRequestException) as e:
        cx.get_range_slices(ColumnParent('Standard1'), ALL, KeyRange(start_key=b'', end_key=b'', count=0), ONE)
    assert e.value.why == 'maxRows must be positive'
    a, b = sorted([b'x1', b'x2'], key=token)
    with pytest.raises(InvalidRequestException) as e:
        cx.get_range_slices(ColumnParent('Standard1'), ALL, KeyRange(start_key=b, end_key=a, count=10), ONE)
    assert e.value.why == ("start key's token sorts after end key's token.  this is not allowed; "
                           "you probably should not specify end key at all except with an ordered partitioner")


def test_ring_calls(cx, ks):
    ring = cx.describe_ring(ks)
    assert len(ring) >= 1
    assert all(r.endpoints and r.endpoints[0] for r in ring)
    tmap = cx.describe_token_map()
    assert sorted(tmap) == sorted(r.end_token for r in ring)
    assert set(tmap.values()) <= {e for r in ring for e in r.endpoints}
    with pytest.raises(InvalidRequestException) as e:
        cx.describe_ring('system')
    assert e.value.why == 'There is no ring for the keyspace: system'
    assert cx.describe_partitioner() == RANDOM
    assert cx.describe_snitch().startswith('org.apache.cassandra.locator.')
    assert cx.describe_version().startswith('19.')
    assert isinstance(cx.describe_cluster_name(), str)
    versions = cx.describe_schema_versions()
    assert len(versions) == 1


def test_describe_splits_ex_covers_the_range(cx, ks, rows):
    ring = cx.describe_ring(ks)[0]
    splits = cx.describe_splits_ex('Standard1', ring.start_token, ring.end_token, 10)
    assert splits
    assert splits[0].start_token == ring.start_token
    assert splits[-1].end_token == ring.end_token
    for a, b in zip(splits, splits[1:]):
        assert a.end_token == b.start_token
    assert all(s.row_count >= 0 for s in splits)

