"""ColumnFamily: pycassa-style reads and writes of one column family."""

import uuid

from cassandra.ttypes import (
    Column, ColumnOrSuperColumn, ColumnParent, ColumnPath, ConsistencyLevel,
    Deletion, InvalidRequestException, KeyRange, Mutation, NotFoundException,
    SlicePredicate, SliceRange, SuperColumn)

from . import util

__all__ = ['ColumnFamily', 'Mutator', 'CfMutator']

_MARSHAL = 'org.apache.cassandra.db.marshal.'


def _short(comparator):
    if comparator.startswith(_MARSHAL):
        return comparator[len(_MARSHAL):]
    return comparator


def _key(key):
    # Row keys are Thrift strings in 0.6.
    if isinstance(key, (bytes, bytearray)):
        return bytes(key).decode('utf-8')
    return key


def _value(value):
    if isinstance(value, str):
        return value.encode('utf-8')
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError('column values are bytes or str, not %s' % type(value).__name__)


def _pack(name, comparator):
    """Bytes of a column name for a comparator; bytes pass through."""
    if isinstance(name, (bytes, bytearray)):
        return bytes(name)
    if isinstance(name, uuid.UUID):
        return name.bytes
    if isinstance(name, bool):
        raise TypeError('a boolean is not a column name')
    if isinstance(name, int):
        if comparator == 'LongType':
            return util.pack_long(name)
        raise TypeError('integer column names need LongType, not %s' % comparator)
    if isinstance(name, str):
        if comparator in ('TimeUUIDType', 'LexicalUUIDType'):
            return uuid.UUID(name).bytes
        if comparator == 'AsciiType':
            return name.encode('ascii', 'surrogateescape')
        return name.encode('utf-8')
    raise TypeError('cannot use %s as a column name' % type(name).__name__)


def _unpack(name, comparator):
    """The Python value of a column name under a comparator."""
    if comparator == 'LongType' and len(name) == 8:
        return util.unpack_long(name)
    if comparator in ('TimeUUIDType', 'LexicalUUIDType') and len(name) == 16:
        return uuid.UUID(bytes=name)
    if comparator == 'UTF8Type':
        return name.decode('utf-8')
    if comparator == 'AsciiType':
        return name.decode('ascii', 'surrogateescape')
    return name


class ColumnFamily(object):
    """Reads and writes one column family of one keyspace through a Client.

    Column names are converted from and to Python values according to the
    column family's comparators (read once with describe_keyspace):
    LongType names are ints, TimeUUIDType and LexicalUUIDType names are
    uuid.UUIDs, UTF8Type and AsciiType names are strs, BytesType names are
    bytes; bytes are always accepted as they are. Pass autopack_names=False
    to see and give raw bytes everywhere. Values are bytes (a str given is
    stored as UTF-8).

    Every read takes read_consistency_level and every write
    write_consistency_level (a ConsistencyLevel value); left out, the
    column family's defaults are used. Writes are stamped with
    timestamp() (microseconds since the epoch unless another function is
    given) and return the timestamp they used.

    In a super column family, a row is {super column name: {subcolumn
    name: value}}; pass super_column= to work inside one super column.
    """

    def __init__(self, client, keyspace, column_family, buffer_size=1024,
                 read_consistency_level=ConsistencyLevel.ONE,
                 write_consistency_level=ConsistencyLevel.ONE,
                 timestamp=util.timestamp, super=None, dict_class=dict,
                 autopack_names=True):
        self.client = client
        self.keyspace = keyspace
        self.column_family = column_family
        self.buffer_size = buffer_size
        self.read_consistency_level = read_consistency_level
        self.write_consistency_level = write_consistency_level
        self.timestamp = timestamp
        self.dict_class = dict_class
        self.autopack_names = autopack_names

        schema = client.keyspace_schema(keyspace) if hasattr(client, 'keyspace_schema') \
            else client.describe_keyspace(keyspace)
        if column_family not in schema:
            raise InvalidRequestException(why='unconfigured columnfamily %s' % column_family)
        cf = schema[column_family]
        self.super = cf['Type'] == 'Super' if super is None else super
        self.comparator = _short(cf.get('CompareWith', 'BytesType'))
        self.subcomparator = _short(cf.get('CompareSubcolumnsWith', 'BytesType'))

    # -- conversions ---------------------------------------------------------

    def _pack_name(self, name, sub):
        if not self.autopack_names:
            return _pack(name, 'BytesType') if isinstance(name, str) else name
        return _pack(name, self.subcomparator if sub else self.comparator)

    def _unpack_name(self, name, sub):
        if not self.autopack_names:
            return name
        return _unpack(name, self.subcomparator if sub else self.comparator)

    def _pack_super(self, super_column):
        if super_column is None:
            return None
        return self._pack_name(super_column, False)

    def _names_are_sub(self, super_column):
        # Names in a request refer to subcolumns when a super column is
        # named, else to the top-level names of the column family.
        return self.super and super_column is not None

    def _predicate(self, columns, column_start, column_finish, column_reversed,
                   column_count, super_column):
        sub = self._names_are_sub(super_column)
        if columns is not None:
            return SlicePredicate(column_names=[self._pack_name(c, sub) for c in columns])
        start = self._pack_name(column_start, sub) if column_start not in ('', b'', None) else b''
        finish = self._pack_name(column_finish, sub) if column_finish not in ('', b'', None) else b''
        return SlicePredicate(slice_range=SliceRange(
            start=start, finish=finish, reversed=column_reversed, count=column_count))

    def _column(self, column, sub, include_timestamp):
        value = (column.value, column.timestamp) if include_timestamp else column.value
        return self._unpack_name(column.name, sub), value

    def _row(self, cosc_list, super_column, include_timestamp):
        row = self.dict_class()
        sub = self._names_are_sub(super_column)
        for cosc in cosc_list:
            if cosc.super_column is not None:
                sc = cosc.super_column
                columns = self.dict_class()
                for c in sc.columns:
                    name, value = self._column(c, True, include_timestamp)
                    columns[name] = value
                row[self._unpack_name(sc.name, False)] = columns
            elif cosc.column is not None:
                name, value = self._column(cosc.column, sub, include_timestamp)
                row[name] = value
        return row

    def _parent(self, super_column):
        return ColumnParent(column_family=self.column_family,
                            super_column=self._pack_super(super_column))

    def _rcl(self, level):
        return self.read_consistency_level if level is None else level

    def _wcl(self, level):
        return self.write_consistency_level if level is None else level

    # -- reads ---------------------------------------------------------------

    def get(self, key, columns=None, column_start='', column_finish='',
            column_reversed=False, column_count=100, include_timestamp=False,
            super_column=None, read_consistency_level=None):
        """The columns of one row as a dict, in comparator order.

        columns names the wanted columns; otherwise up to column_count
        columns from column_start to column_finish (both inclusive, empty
        meaning open) are returned, last first when column_reversed. With
        include_timestamp each value is a (value, timestamp) pair. Raises
        NotFoundException when nothing matches."""
        result = self.client.get_slice(
            self.keyspace, _key(key), self._parent(super_column),
            self._predicate(columns, column_start, column_finish, column_reversed,
                            column_count, super_column),
            self._rcl(read_consistency_level))
        if not result:
            raise NotFoundException()
        return self._row(result, super_column, include_timestamp)

    def multiget(self, keys, columns=None, column_start='', column_finish='',
                 column_reversed=False, column_count=100, include_timestamp=False,
                 super_column=None, read_consistency_level=None):
        """get for several rows at once: a dict of key to columns, in the
        order of keys, leaving out rows where nothing matched."""
        keys = [_key(k) for k in keys]
        result = self.client.multiget_slice(
            self.keyspace, keys, self._parent(super_column),
            self._predicate(columns, column_start, column_finish, column_reversed,
                            column_count, super_column),
            self._rcl(read_consistency_level))
        rows = self.dict_class()
        for key in keys:
            if key in rows:
                continue
            found = result.get(key)
            if found:
                rows[key] = self._row(found, super_column, include_timestamp)
        return rows

    def get_count(self, key, super_column=None, read_consistency_level=None):
        """Number of live columns in a row (super columns in a super column
        family, or subcolumns of super_column); 0 for a missing row."""
        return self.client.get_count(self.keyspace, _key(key), self._parent(super_column),
                                     self._rcl(read_consistency_level))

    def get_range(self, start='', finish='', columns=None, column_start='',
                  column_finish='', column_reversed=False, column_count=100,
                  row_count=None, include_timestamp=False, super_column=None,
                  read_consistency_level=None, buffer_size=None, filter_empty=True):
        """A generator of (key, columns) over the rows from key start to key
        finish (inclusive; empty means open), in the partitioner's order.

        It pages through get_range_slices buffer_size rows at a time, each
        page starting at the last key of the previous one; that repeated
        key is yielded once. Rows with no matching live column ("range
        ghosts": deleted rows, rows with none of the asked columns) are
        skipped unless filter_empty is False, in which case they come with
        empty columns. row_count caps the number of rows yielded. Under
        RandomPartitioner the order is that of the keys' MD5 tokens, and
        finish must not sort before start."""
        page = buffer_size or self.buffer_size
        if page < 2:
            # A page of one could only ever hold the repeated key.
            raise ValueError('buffer_size must be at least 2')
        parent = self._parent(super_column)
        predicate = self._predicate(columns, column_start, column_finish,
                                    column_reversed, column_count, super_column)
        level = self._rcl(read_consistency_level)
        start_key, finish = _key(start), _key(finish)
        last_key = None
        yielded = 0
        while True:
            key_range = KeyRange(start_key=start_key, end_key=finish, count=page)
            slices = self.client.get_range_slices(self.keyspace, parent, predicate,
                                                  key_range, level)
            for key_slice in slices:
                if key_slice.key == last_key:
                    continue
                if filter_empty and not key_slice.columns:
                    continue
                yield key_slice.key, self._row(key_slice.columns, super_column,
                                               include_timestamp)
                yielded += 1
                if row_count is not None and yielded >= row_count:
                    return
            if len(slices) < page:
                return
            last_key = start_key = slices[-1].key

    # -- writes --------------------------------------------------------------

    def _insert_mutations(self, columns, timestamp):
        mutations = []
        if self.super:
            for sc_name, subcolumns in columns.items():
                sub = [Column(name=self._pack_name(n, True), value=_value(v), timestamp=timestamp)
                       for n, v in subcolumns.items()]
                sc = SuperColumn(name=self._pack_name(sc_name, False), columns=sub)
                mutations.append(Mutation(column_or_supercolumn=ColumnOrSuperColumn(super_column=sc)))
        else:
            for n, v in columns.items():
                c = Column(name=self._pack_name(n, False), value=_value(v), timestamp=timestamp)
                mutations.append(Mutation(column_or_supercolumn=ColumnOrSuperColumn(column=c)))
        return mutations

    def _remove_mutation(self, columns, super_column, timestamp):
        deletion = Deletion(timestamp=timestamp, super_column=self._pack_super(super_column))
        if columns is not None:
            sub = self._names_are_sub(super_column)
            deletion.predicate = SlicePredicate(
                column_names=[self._pack_name(c, sub) for c in columns])
        return Mutation(deletion=deletion)

    def insert(self, key, columns, timestamp=None, write_consistency_level=None):
        """Write the columns of a dict ({name: value}, or {super column
        name: {name: value}} in a super column family) to one row, all at
        one timestamp, in one request. Returns the timestamp."""
        ts = self.timestamp() if timestamp is None else timestamp
        mutations = self._insert_mutations(columns, ts)
        if mutations:
            self.client.batch_mutate(self.keyspace,
                                     {_key(key): {self.column_family: mutations}},
                                     self._wcl(write_consistency_level))
        return ts

    def remove(self, key, columns=None, super_column=None, timestamp=None,
               write_consistency_level=None):
        """Delete a whole row of this column family, one super column
        (super_column), or the named columns (of super_column, when given).
        In a super column family, columns without super_column name super
        columns. Returns the timestamp of the deletion."""
        ts = self.timestamp() if timestamp is None else timestamp
        level = self._wcl(write_consistency_level)
        if columns is None:
            path = ColumnPath(column_family=self.column_family,
                              super_column=self._pack_super(super_column))
            self.client.remove(self.keyspace, _key(key), path, ts, level)
        else:
            self.client.batch_mutate(
                self.keyspace,
                {_key(key): {self.column_family: [self._remove_mutation(columns, super_column, ts)]}},
                level)
        return ts

    def batch(self, queue_size=100, write_consistency_level=None):
        """A CfMutator collecting inserts and removes for this column
        family; they are sent with batch_mutate when queue_size of them
        are pending, on send(), and when a with block ends."""
        return CfMutator(self, queue_size, write_consistency_level)


class Mutator(object):
    """Collects inserts and removes for any column families and sends them
    in as few batch_mutate calls as possible (one per keyspace). Within one
    row of one column family the server reconciles them by timestamp, not
    by order. Usable as a context manager: leaving the block sends what is
    pending, unless an exception is leaving it."""

    def __init__(self, client, queue_size=100, write_consistency_level=None):
        self.client = client
        self.queue_size = queue_size
        self.write_consistency_level = write_consistency_level
        self._pending = []

    def _queue(self, cf, key, mutation):
        self._pending.append((cf, _key(key), mutation))
        if len(self._pending) >= self.queue_size:
            self.send()

    def insert(self, column_family, key, columns, timestamp=None):
        """Queue an insert into column_family (a ColumnFamily), as
        ColumnFamily.insert. Returns the timestamp used."""
        ts = column_family.timestamp() if timestamp is None else timestamp
        for m in column_family._insert_mutations(columns, ts):
            self._queue(column_family, key, m)
        return ts

    def remove(self, column_family, key, columns=None, super_column=None, timestamp=None):
        """Queue a deletion, as ColumnFamily.remove. Returns the timestamp."""
        ts = column_family.timestamp() if timestamp is None else timestamp
        self._queue(column_family, key, column_family._remove_mutation(columns, super_column, ts))
        return ts

    def send(self, write_consistency_level=None):
        """Send every pending mutation now."""
        pending, self._pending = self._pending, []
        by_keyspace = {}
        levels = {}
        for cf, key, mutation in pending:
            rows = by_keyspace.setdefault(cf.keyspace, {})
            rows.setdefault(key, {}).setdefault(cf.column_family, []).append(mutation)
            levels.setdefault(cf.keyspace, cf.write_consistency_level)
        for keyspace, rows in by_keyspace.items():
            level = write_consistency_level
            if level is None:
                level = self.write_consistency_level
            if level is None:
                level = levels[keyspace]
            self.client.batch_mutate(keyspace, rows, level)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.send()
        return False


class CfMutator(Mutator):
    """A Mutator bound to one ColumnFamily: insert(key, columns) and
    remove(key, columns=None, super_column=None)."""

    def __init__(self, column_family, queue_size=100, write_consistency_level=None):
        if write_consistency_level is None:
            write_consistency_level = column_family.write_consistency_level
        super(CfMutator, self).__init__(column_family.client, queue_size,
                                        write_consistency_level)
        self.column_family = column_family

    def insert(self, key, columns, timestamp=None):
        return super(CfMutator, self).insert(self.column_family, key, columns, timestamp)

    def remove(self, key, columns=None, super_column=None, timestamp=None):
        return super(CfMutator, self).remove(self.column_family, key, columns,
                                             super_column, timestamp)
