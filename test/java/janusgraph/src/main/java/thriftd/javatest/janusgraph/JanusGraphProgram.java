package thriftd.javatest.janusgraph;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.apache.cassandra.thrift.Cassandra;
import org.apache.cassandra.thrift.KsDef;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TFramedTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs JanusGraph 0.5.3's own tests of its cassandrathrift storage backend
 * (JUnit 5 classes of janusgraph-cassandra's tests jar) against one 19.x
 * server, framed, with a RandomPartitioner or Murmur3Partitioner ring.
 * The classes are the default set below (less the excluded tests), or
 * the ones named after the address: a class (every test of it) or
 * Class#method (that test alone, every invocation). Prints one line per test and last "janusgraph: N passed, N
 * failed"; a class whose setup fails counts as one failure. Exits 1 when
 * anything failed. The tests keep their keyspaces (one per class, named
 * after it); the program drops them at the end.
 */
public final class JanusGraphProgram {
    /**
     * The storage-level tests of the Thrift backend, which exercise every
     * call JanusGraph makes of the server: the store (slices, mutations,
     * TTLs, key scans), the consistent-key lock store, batch mutations
     * across stores, the ID authority's locking, the log, and the store
     * manager's keyspace and column family creation.
     */
    static final List<String> DEFAULT_CLASSES = List.of(
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftStoreTest",
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftLockStoreTest",
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftMultiWriteStoreTest",
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftIDAuthorityTest",
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftLogTest",
            "org.janusgraph.diskstorage.cassandra.thrift.CassandraThriftStoreManagerTest",
            "org.janusgraph.diskstorage.cassandra.thrift.ThriftDistributedStoreManagerTest");

    /**
     * Tests of the default classes left out for time. The store's tests
     * below write and then read back up to 25,000 cells one call each (the
     * multi-write stress test as many, in rounds), and the ID authority's
     * claim thousands of blocks: 1 to 16 minutes each on the Cassandra
     * store of a busy 2-core machine, 10 to 300 s on LevelDB,
     * for calls the tests kept make too (the concurrent ones take 2.5 to
     * 10 minutes even on LevelDB). The two TTL tests are left out as
     * timing-bound: they read back cells of a 1, 2 or 10 s TTL after writing
     * others, and failed on a machine at load 60 against the real
     * Cassandra 1.2.19 too ("expected: <3> but was: <2>"). Name them after
     * the address to run them.
     */
    static final Set<String> EXCLUDED = Set.of(
            "ThriftStoreTest.testConcurrentGetSlice",
            "ThriftStoreTest.testConcurrentGetSliceAndMutate",
            "ThriftStoreTest.storeAndRetrieve",
            "ThriftStoreTest.storeAndRetrieveWithClosing",
            "ThriftStoreTest.deleteColumnsTest1",
            "ThriftStoreTest.deleteColumnsTest2",
            "ThriftStoreTest.intervalTest1",
            "ThriftStoreTest.intervalTest2",
            "ThriftStoreTest.scanTestWithSimpleJob",
            "ThriftStoreTest.testTtl",
            "ThriftStoreTest.testStoreTTL",
            "ThriftMultiWriteStoreTest.mutateManyStressTest",
            "ThriftIDAuthorityTest.testMultiIDAcquisition",
            "ThriftIDAuthorityTest.testIDExhaustion");

    public static void main(String[] args) {
        if (args.length < 1 || args[0].lastIndexOf(':') <= 0) {
            System.err.println("usage: JanusGraphProgram HOST:PORT [TEST CLASS...]   (a 19.x Thrift server, framed)");
            System.exit(2);
        }
        int i = args[0].lastIndexOf(':');
        System.setProperty("thriftd.janusgraph.host", args[0].substring(0, i));
        System.setProperty("thriftd.janusgraph.port", args[0].substring(i + 1));
        String host = args[0].substring(0, i);
        int port = Integer.parseInt(args[0].substring(i + 1));
        if (args.length == 1) {
            int status = run(DEFAULT_CLASSES, t -> !EXCLUDED.contains(t));
            System.exit(dropKeyspaces(host, port, DEFAULT_CLASSES) ? status : 1);
        }
        List<String> classes = new ArrayList<>();
        Set<String> whole = new HashSet<>();
        Set<String> methods = new HashSet<>();
        for (String a : Arrays.asList(args).subList(1, args.length)) {
            String c = a.contains("#") ? a.substring(0, a.indexOf('#')) : a;
            if (!classes.contains(c)) {
                classes.add(c);
            }
            String simple = c.substring(c.lastIndexOf('.') + 1);
            if (a.contains("#")) {
                methods.add(simple + "." + a.substring(a.indexOf('#') + 1));
            } else {
                whole.add(simple);
            }
        }
        int status = run(classes, t -> whole.contains(t.substring(0, t.indexOf('.'))) || methods.contains(t));
        System.exit(dropKeyspaces(host, port, classes) ? status : 1);
    }

    /** Drops the keyspaces the classes' tests left (named after each class); false if a drop failed. */
    static boolean dropKeyspaces(String host, int port, List<String> classes) {
        TTransport transport = new TFramedTransport(new TSocket(host, port));
        try {
            transport.open();
            Cassandra.Client client = new Cassandra.Client(new TBinaryProtocol(transport));
            Set<String> present = new HashSet<>();
            for (KsDef ks : client.describe_keyspaces()) {
                present.add(ks.getName());
            }
            for (String c : classes) {
                String ks = c.substring(c.lastIndexOf('.') + 1);
                if (present.contains(ks)) {
                    client.system_drop_keyspace(ks);
                }
            }
            return true;
        } catch (Exception e) {
            System.out.println("janusgraph: dropping the tests' keyspaces failed: " + e);
            return false;
        } finally {
            transport.close();
        }
    }

    /** Runs the tests of classes whose "Class.method" names wanted accepts. */
    static int run(List<String> classes, Predicate<String> wanted) {
        List<ClassSelector> selectors = new ArrayList<>();
        for (String c : classes) {
            selectors.add(selectClass(c));
        }
        PostDiscoveryFilter filter = d -> d.getSource()
                .filter(s -> s instanceof MethodSource && !wanted.test(shortName((MethodSource) s)))
                .map(s -> FilterResult.excluded("not selected"))
                .orElse(FilterResult.included(null));
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .filters(filter)
                .build();
        Listener listener = new Listener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, listener);
        return listener.finish();
    }

    /** "Class.method", the class without its package. */
    static String shortName(MethodSource m) {
        return m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1) + "." + m.getMethodName();
    }

    /** Prints each test's outcome as it ends and keeps the counts. */
    static final class Listener implements TestExecutionListener {
        private final Map<String, Long> started = new ConcurrentHashMap<>();
        private final List<String> failures = new ArrayList<>();
        private int passed;
        private int skipped;

        @Override
        public void executionStarted(TestIdentifier id) {
            started.put(id.getUniqueId(), System.nanoTime());
        }

        @Override
        public synchronized void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
                skipped++;
                System.out.printf("skip  %s: %s%n", name(id), reason);
                System.out.flush();
            }
        }

        @Override
        public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Long t0 = started.remove(id.getUniqueId());
            long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
            switch (result.getStatus()) {
            case SUCCESSFUL:
                if (id.isTest()) {
                    passed++;
                    System.out.printf("ok    %s (%d ms)%n", name(id), ms);
                }
                break;
            case ABORTED:
                // An assumption that does not hold here: JUnit's skip.
                if (id.isTest()) {
                    skipped++;
                    System.out.printf("skip  %s: %s%n", name(id), why(result));
                }
                break;
            default:
                String line = name(id) + (id.isTest() ? "" : " (setup or teardown)") + ": " + why(result);
                failures.add(line);
                System.out.printf("FAIL  %s (%d ms)%n", line, ms);
                result.getThrowable().ifPresent(t -> t.printStackTrace(System.out));
            }
            System.out.flush();
        }

        int finish() {
            System.out.println();
            if (!failures.isEmpty()) {
                System.out.println("janusgraph failures:");
                for (String f : failures) {
                    System.out.println("  " + f);
                }
            }
            if (skipped > 0) {
                System.out.printf("janusgraph: %d skipped by the tests' own assumptions%n", skipped);
            }
            System.out.printf("janusgraph: %d passed, %d failed%n", passed, failures.size());
            System.out.flush();
            return failures.isEmpty() && passed > 0 ? 0 : 1;
        }

        private static String name(TestIdentifier id) {
            TestSource s = id.getSource().orElse(null);
            if (s instanceof MethodSource) {
                MethodSource m = (MethodSource) s;
                String n = shortName(m);
                return id.getDisplayName().startsWith(m.getMethodName()) ? n : n + " " + id.getDisplayName();
            }
            if (s instanceof ClassSource) {
                return ((ClassSource) s).getClassName();
            }
            return id.getDisplayName();
        }

        private static String why(TestExecutionResult result) {
            return result.getThrowable().map(t -> {
                StringBuilder sb = new StringBuilder(t.toString());
                for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                    sb.append(" <- ").append(c);
                }
                return sb.toString();
            }).orElse("no reason given");
        }
    }
}
