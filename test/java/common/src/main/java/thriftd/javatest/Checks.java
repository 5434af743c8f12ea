package thriftd.javatest;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A named sequence of checks against one server. Each check runs its body;
 * an exception or a failed assertion fails that check and the run goes on,
 * except for a required check (setup the rest depends on), whose failure
 * ends the run. {@link #finish} prints a summary whose last line is
 * "NAME: N passed, N failed" and returns the process's exit status.
 */
public final class Checks {
    /** The body of a check. */
    public interface Body {
        void run() throws Exception;
    }

    /** Thrown by a failed required check to end the run. */
    public static final class Abort extends RuntimeException {
        Abort(String message) {
            super(message);
        }
    }

    private final String suite;
    private final List<String> failures = new ArrayList<>();
    private int passed;

    public Checks(String suite) {
        this.suite = suite;
    }

    /** Runs one check and records its outcome. */
    public void check(String name, Body body) {
        long t0 = System.nanoTime();
        try {
            body.run();
            passed++;
            System.out.printf("ok    %s (%d ms)%n", name, (System.nanoTime() - t0) / 1_000_000);
        } catch (Abort a) {
            throw a;
        } catch (Throwable t) {
            String why = describe(t);
            failures.add(name + ": " + why);
            System.out.printf("FAIL  %s: %s%n", name, why);
        }
        System.out.flush();
    }

    /** Runs a check the rest of the run depends on: its failure ends the run. */
    public void require(String name, Body body) {
        int before = failures.size();
        check(name, body);
        if (failures.size() != before) {
            throw new Abort("required check failed: " + name);
        }
    }

    /** Prints the summary and returns 0 when every check passed, else 1. */
    public int finish(String abortedBy) {
        System.out.println();
        if (abortedBy != null) {
            failures.add(abortedBy + " (the checks after it did not run)");
        }
        if (!failures.isEmpty()) {
            System.out.println(suite + " failures:");
            for (String f : failures) {
                System.out.println("  " + f);
            }
        }
        // The closing line CI reads: "N passed, N failed".
        System.out.printf("%s: %d passed, %d failed%n", suite, passed, failures.size());
        System.out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(t.toString());
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            sb.append(" <- ").append(c);
        }
        if (!(t instanceof AssertionError)) {
            StackTraceElement[] st = t.getStackTrace();
            for (int i = 0; i < Math.min(st.length, 12); i++) {
                if (st[i].getClassName().startsWith("thriftd.javatest")) {
                    sb.append(" at ").append(st[i]);
                    break;
                }
            }
        }
        return sb.toString();
    }

    // ---- assertions ----------------------------------------------------

    public static void eq(Object want, Object got, String what) {
        if (!Objects.equals(want, got)) {
            throw new AssertionError(what + ": want " + want + ", got " + got);
        }
    }

    public static void isTrue(boolean cond, String what) {
        if (!cond) {
            throw new AssertionError(what);
        }
    }

    /** Runs body and asserts that it throws an exception whose text (or a cause's) contains want. */
    public static void fails(String what, String want, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (String.valueOf(c.getMessage()).contains(want) || c.toString().contains(want)) {
                    return;
                }
                if (c == c.getCause()) {
                    break;
                }
            }
            throw new AssertionError(what + ": want an error containing \"" + want + "\", got " + describe(t));
        }
        throw new AssertionError(what + ": want an error containing \"" + want + "\", got success");
    }

    /** "HOST:PORT" split; exits with status 2 on a malformed argument. */
    public static String[] target(String[] args, String program) {
        if (args.length != 1 || args[0].lastIndexOf(':') <= 0) {
            System.err.println("usage: " + program + " HOST:PORT   (a 19.x Thrift server, framed)");
            System.exit(2);
        }
        int i = args[0].lastIndexOf(':');
        return new String[] {args[0].substring(0, i), args[0].substring(i + 1)};
    }

    /**
     * Asserts the TTL a read reports for a column written with ttl seconds:
     * the TTL it was written with, as Cassandra 1.2 reports it.
     */
    public static void ttlReadBack(int ttl, int got) {
        eq(ttl, got, "TTL read back");
    }

    /** Sleeps ms milliseconds. */
    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }
}
