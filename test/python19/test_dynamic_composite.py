"""DynamicCompositeType names as pycassa 1.x packs them, after pycassa's
test_autopacking: the same columns written with their components' types
named by class, then by alias, are the same columns (Cassandra 1.2 resolves
an alias and a class name to one type), read back with the names of the
later writes."""

import struct
import time

from cassandra19.ttypes import (
    CfDef, Column, ColumnParent, ColumnPath, KsDef, SlicePredicate, SliceRange)

from support19 import ONE, i64

SIMPLE = 'org.apache.cassandra.locator.SimpleStrategy'
DYN = ('DynamicCompositeType(a=>AsciiType,b=>BytesType,i=>IntegerType,l=>LongType,'
       's=>UTF8Type,t=>TimeUUIDType,u=>UUIDType,x=>LexicalUUIDType)')
ALL = SlicePredicate(slice_range=SliceRange(b'', b'', False, 100))
VALS = [b'val1', b'val2', b'val3']


def dynamic(*parts):
    """A DynamicCompositeType name packed as pycassa packs it: each part a
    (type, value) pair, the type an alias (one character: 0x8000 | alias)
    or a class name (its length and bytes), then the value's length, bytes
    and an end-of-component byte."""
    out = b''
    for typ, value in parts:
        if len(typ) == 1:
            out += struct.pack('>H', 0x8000 | ord(typ))
        else:
            out += struct.pack('>H', len(typ)) + typ.encode()
        b = i64(value) if isinstance(value, int) else value
        out += struct.pack('>H', len(b)) + b + b'\x00'
    return out


def test_class_names_then_aliases_are_the_same_columns(fresh, new_ks):
    c = fresh
    c.system_add_keyspace(KsDef(new_ks, SIMPLE, {'replication_factor': '1'}, cf_defs=[
        CfDef(new_ks, 'StdDynamicComposite', comparator_type=DYN)]))
    c.set_keyspace(new_ks)
    parent = ColumnParent('StdDynamicComposite')
    by_class = [dynamic(('LongType', n), ('BytesType', s)) for n, s in ((1, b'foo'), (2, b'bar'), (3, b'baz'))]
    by_alias = [dynamic(('l', n), ('b', s)) for n, s in ((1, b'foo'), (2, b'bar'), (3, b'baz'))]
    for group in (by_class, by_alias):
        ts = int(time.time() * 1e6)
        for key in (b'key1', b'key2'):
            for name, value in zip(group, VALS):
                c.insert(key, parent, Column(name, value, ts), ONE)
        got = c.get_slice(b'key1', parent, ALL, ONE)
        assert [(x.column.name, x.column.value) for x in got] == list(zip(group, VALS))
        assert c.get_count(b'key1', parent, ALL, ONE) == 3
        # Each column by the other group's spelling of its name.
        for i, other in enumerate(by_alias if group is by_class else by_class):
            assert c.get(b'key1', ColumnPath('StdDynamicComposite', column=other), ONE).column.name == group[i]
        rng = SlicePredicate(slice_range=SliceRange(group[0], group[0], False, 100))
        assert [x.column.name for x in c.get_slice(b'key2', parent, rng, ONE)] == [group[0]]
    c.remove(b'key1', ColumnPath('StdDynamicComposite', column=by_class[0]), int(time.time() * 1e6), ONE)
    assert c.get_count(b'key1', parent, ALL, ONE) == 2
