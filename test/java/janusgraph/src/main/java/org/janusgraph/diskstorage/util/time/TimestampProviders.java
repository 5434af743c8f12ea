package org.janusgraph.diskstorage.util.time;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Stands in for JanusGraph 0.5.3's enum of the same name (coming first on
 * the class path), with one change: {@link #getTime()} is truncated to the
 * provider's unit. JanusGraph 0.5.3 was written for Java 8, whose
 * {@code Instant.now()} had millisecond precision; since Java 15 it has
 * nanoseconds. The original MICRO provider, Cassandra's, then hands out
 * times it cannot write: a lock is remembered at its nanosecond time,
 * written as microseconds, and never found again on read-back
 * ("Read 1 locks with our rid ... but mismatched timestamps; no lock
 * column contained our timestamp"), whatever the server. Everything else
 * is the original's contract: the unit, the conversions, sleepPast waiting
 * until the clock is strictly past a time (a millisecond further for
 * MILLI), sleepFor.
 */
public enum TimestampProviders implements TimestampProvider {
    NANO {
        @Override
        public Instant getTime(long sinceEpoch) {
            return Instant.ofEpochSecond(0, sinceEpoch);
        }

        @Override
        public ChronoUnit getUnit() {
            return ChronoUnit.NANOS;
        }

        @Override
        public long getTime(Instant t) {
            return t.getEpochSecond() * 1_000_000_000L + t.getNano();
        }
    },
    MICRO {
        @Override
        public Instant getTime(long sinceEpoch) {
            return Instant.ofEpochSecond(0, sinceEpoch * 1000L);
        }

        @Override
        public ChronoUnit getUnit() {
            return ChronoUnit.MICROS;
        }

        @Override
        public long getTime(Instant t) {
            return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
        }
    },
    MILLI {
        @Override
        public Instant getTime(long sinceEpoch) {
            return Instant.ofEpochMilli(sinceEpoch);
        }

        @Override
        public ChronoUnit getUnit() {
            return ChronoUnit.MILLIS;
        }

        @Override
        public long getTime(Instant t) {
            return t.getEpochSecond() * 1000L + t.getNano() / 1_000_000;
        }
    };

    @Override
    public Instant getTime() {
        return Instant.now().truncatedTo(getUnit());
    }

    @Override
    public Instant sleepPast(Instant futureTime) throws InterruptedException {
        if (getUnit().equals(ChronoUnit.MILLIS)) {
            futureTime = futureTime.plusMillis(1);
        }
        while (true) {
            Instant now = getTime();
            if (now.compareTo(futureTime) > 0) {
                return now;
            }
            long delta = Math.max(1, getTime(futureTime) - getTime(now));
            Temporals.timeUnit(getUnit()).sleep(delta);
        }
    }

    @Override
    public void sleepFor(Duration duration) throws InterruptedException {
        if (!duration.isZero()) {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        }
    }

    @Override
    public Timer getTimer() {
        return new Timer(this);
    }

    @Override
    public String toString() {
        return name();
    }
}
