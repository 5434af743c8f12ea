"""Timestamps, LongType names and TimeUUIDs as Cassandra 0.6 expects them.

Cassandra orders TimeUUIDType names by the 60-bit time inside a version 1
UUID, then by all 16 bytes; LongType names are 8-byte big-endian signed
integers. These helpers build and read both, and make the microsecond
timestamps every write carries.
"""

import calendar
import datetime
import os
import struct
import time
import uuid

# Number of 100-nanosecond intervals between the UUID epoch (1582-10-15)
# and the Unix epoch: the offset of a version 1 UUID's clock.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000

__all__ = [
    'timestamp', 'pack_long', 'unpack_long', 'time_uuid',
    'convert_time_to_uuid', 'convert_uuid_to_time',
]


def timestamp():
    """Microseconds since the Unix epoch: the timestamp convention of 0.6
    clients (the CLI, pycassa, the Ruby gem)."""
    return time.time_ns() // 1000


def pack_long(n):
    """The 8 bytes a LongType column name holds for the integer n.

    Raises struct.error when n does not fit a signed 64-bit integer."""
    return struct.pack('>q', n)


def unpack_long(b):
    """The integer held by the 8 bytes of a LongType column name."""
    return struct.unpack('>q', b)[0]


def time_uuid():
    """A new version 1 UUID; successive calls in one process return UUIDs
    that sort later under TimeUUIDType."""
    return uuid.uuid1()


def _seconds(t):
    if isinstance(t, datetime.datetime):
        if t.tzinfo is None:
            # Naive datetimes are read as UTC, as pycassa did.
            return calendar.timegm(t.timetuple()) + t.microsecond / 1e6
        return t.timestamp()
    return float(t)


def convert_time_to_uuid(t, lowest_val=True, randomize=False):
    """A version 1 UUID for time t (Unix seconds as a number, or a datetime;
    naive datetimes are UTC).

    Used as a slice bound it selects every TimeUUID of that 100-ns tick:
    lowest_val=True gives the smallest UUID of the tick (column_start),
    lowest_val=False the largest (column_finish). randomize=True instead
    fills the clock sequence and node with random bits, giving a fresh
    name for a column written "at" time t."""
    ticks = int(round(_seconds(t) * 1e7)) + _UUID_EPOCH_OFFSET
    time_low = ticks & 0xFFFFFFFF
    time_mid = (ticks >> 32) & 0xFFFF
    time_hi_version = ((ticks >> 48) & 0x0FFF) | 0x1000
    if randomize:
        tail = bytearray(os.urandom(8))
        tail[0] = (tail[0] & 0x3F) | 0x80  # RFC 4122 variant
        tail = bytes(tail)
    elif lowest_val:
        tail = b'\x00' * 8
    else:
        tail = b'\xff' * 8
    head = struct.pack('>IHH', time_low, time_mid, time_hi_version)
    return uuid.UUID(bytes=head + tail)


def convert_uuid_to_time(u):
    """Unix seconds (a float) of the time held by a version 1 UUID, given
    as a uuid.UUID or its 16 bytes."""
    if isinstance(u, (bytes, bytearray)):
        u = uuid.UUID(bytes=bytes(u))
    return (u.time - _UUID_EPOCH_OFFSET) / 1e7
