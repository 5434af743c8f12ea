package thriftd.javatest.astyanax;

import static thriftd.javatest.Checks.eq;
import static thriftd.javatest.Checks.fails;
import static thriftd.javatest.Checks.isTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.google.common.collect.ImmutableMap;
import com.netflix.astyanax.AstyanaxContext;
import com.netflix.astyanax.Cluster;
import com.netflix.astyanax.Keyspace;
import com.netflix.astyanax.ColumnListMutation;
import com.netflix.astyanax.MutationBatch;
import com.netflix.astyanax.annotations.Component;
import com.netflix.astyanax.connectionpool.NodeDiscoveryType;
import com.netflix.astyanax.connectionpool.SSLConnectionContext;
import com.netflix.astyanax.connectionpool.TokenRange;
import com.netflix.astyanax.connectionpool.impl.ConnectionPoolConfigurationImpl;
import com.netflix.astyanax.connectionpool.impl.ConnectionPoolType;
import com.netflix.astyanax.connectionpool.impl.CountingConnectionPoolMonitor;
import com.netflix.astyanax.ddl.ColumnDefinition;
import com.netflix.astyanax.ddl.ColumnFamilyDefinition;
import com.netflix.astyanax.ddl.KeyspaceDefinition;
import com.netflix.astyanax.impl.AstyanaxConfigurationImpl;
import com.netflix.astyanax.model.Column;
import com.netflix.astyanax.model.ColumnFamily;
import com.netflix.astyanax.model.ColumnList;
import com.netflix.astyanax.model.ColumnPath;
import com.netflix.astyanax.model.Row;
import com.netflix.astyanax.model.Rows;
import com.netflix.astyanax.query.RowQuery;
import com.netflix.astyanax.serializers.AnnotatedCompositeSerializer;
import com.netflix.astyanax.serializers.AsciiSerializer;
import com.netflix.astyanax.serializers.BigIntegerSerializer;
import com.netflix.astyanax.serializers.LongSerializer;
import com.netflix.astyanax.serializers.StringSerializer;
import com.netflix.astyanax.serializers.TimeUUIDSerializer;
import com.netflix.astyanax.serializers.UUIDSerializer;
import com.netflix.astyanax.thrift.ThriftFamilyFactory;
import com.netflix.astyanax.util.RangeBuilder;
import com.netflix.astyanax.util.TimeUUIDUtils;
import thriftd.javatest.Checks;

/**
 * Astyanax 1.56.49 driving a 19.x server as an application does: a
 * token-aware pool, the schema API, mutation batches (with TTLs), row,
 * slice, multiget and key-range queries, getAllRows (which computes the
 * RandomPartitioner's tokens itself and pages by token), column counts,
 * deletions, composites through AnnotatedCompositeSerializer ranges, the
 * typed comparators, KEYS secondary indexes (searchWithIndex, paged too,
 * and an index added to a family holding rows) and counters, then
 * dropping what it made. Its keyspace is
 * AstyanaxTest (dropped first if a run left it).
 */
public final class AstyanaxProgram {
    static final String KS = "AstyanaxTest";
    /** Seconds the expiring columns live: long enough to be read back on a busy machine. */
    static final int TTL = 6;

    /** A CompositeType(UTF8Type,LongType) column name. */
    public static final class Name {
        @Component(ordinal = 0)
        public String part;
        @Component(ordinal = 1)
        public Long number;

        public Name() {
        }

        Name(String part, long number) {
            this.part = part;
            this.number = number;
        }

        @Override
        public String toString() {
            return part + ":" + number;
        }
    }

    static final StringSerializer SS = StringSerializer.get();
    static final AnnotatedCompositeSerializer<Name> NAMES = new AnnotatedCompositeSerializer<>(Name.class);
    static final ColumnFamily<String, String> STANDARD = new ColumnFamily<>("Standard", SS, SS);
    static final ColumnFamily<String, String> STATIC = new ColumnFamily<>("Static", SS, SS);
    static final ColumnFamily<String, String> SUPER = new ColumnFamily<>("Super", SS, SS, com.netflix.astyanax.model.ColumnType.SUPER);
    static final ColumnFamily<String, Name> COMPOSITE = new ColumnFamily<>("Composite", SS, NAMES);
    static final ColumnFamily<String, Long> LONGS = new ColumnFamily<>("Longs", SS, LongSerializer.get());
    static final ColumnFamily<String, UUID> TIMEUUIDS = new ColumnFamily<>("TimeUUIDs", SS, TimeUUIDSerializer.get());
    static final ColumnFamily<String, String> ASCIIS = new ColumnFamily<>("Asciis", SS, AsciiSerializer.get());
    static final ColumnFamily<String, BigInteger> INTEGERS = new ColumnFamily<>("Integers", SS, BigIntegerSerializer.get());
    static final ColumnFamily<String, String> ADDED = new ColumnFamily<>("Added", SS, SS);
    static final ColumnFamily<String, String> COUNTERS = new ColumnFamily<>("Counters", SS, SS);
    static final ColumnFamily<String, String> USERS = new ColumnFamily<>("Users", SS, SS);
    static final ColumnFamily<String, String> ACCOUNTS = new ColumnFamily<>("Accounts", SS, SS);

    final Checks c = new Checks("astyanax");
    AstyanaxContext<Cluster> clusterContext;
    AstyanaxContext<Keyspace> keyspaceContext;
    Cluster cluster;
    Keyspace ks;

    public static void main(String[] args) {
        String[] t = Checks.target(args, "AstyanaxProgram");
        AstyanaxProgram p = new AstyanaxProgram();
        String aborted = null;
        try {
            p.run(t[0], Integer.parseInt(t[1]));
        } catch (Checks.Abort a) {
            aborted = a.getMessage();
        } finally {
            if (p.keyspaceContext != null) {
                p.keyspaceContext.shutdown();
            }
            if (p.clusterContext != null) {
                p.clusterContext.shutdown();
            }
        }
        System.exit(p.c.finish(aborted));
    }

    /**
     * The pool of the program. With the system property ssl.truststore set (as Hector's
     * own SSL properties are), it connects over TLS through Astyanax's SSLConnectionContext:
     * ssl.truststore.password, ssl.protocol (default TLS) and ssl.cipher.suites
     * (comma-separated; default Astyanax's own, TLS_RSA_WITH_AES_128_CBC_SHA and
     * TLS_RSA_WITH_AES_256_CBC_SHA, which need an RSA server certificate).
     */
    static ConnectionPoolConfigurationImpl pool(String name, String host, int port) {
        ConnectionPoolConfigurationImpl pool = new ConnectionPoolConfigurationImpl(name)
                .setSeeds(host + ":" + port)
                .setPort(port)
                .setMaxConnsPerHost(2)
                .setSocketTimeout(20000)
                .setConnectTimeout(5000)
                .setMaxTimeoutWhenExhausted(20000);
        String truststore = System.getProperty("ssl.truststore");
        if (truststore != null) {
            String suites = System.getProperty("ssl.cipher.suites");
            // The first handshake of a fresh JVM (the JSSE's start, an RSA key) can take
            // more than the plain connect timeout on a busy machine.
            pool.setConnectTimeout(20000);
            pool.setSSLConnectionContext(new SSLConnectionContext(truststore,
                    System.getProperty("ssl.truststore.password", ""),
                    System.getProperty("ssl.protocol", SSLConnectionContext.DEFAULT_SSL_PROTOCOL),
                    suites == null ? SSLConnectionContext.DEFAULT_SSL_CIPHER_SUITES : Arrays.asList(suites.split(","))));
        }
        return pool;
    }

    void run(String host, int port) {
        c.require("connect through the pool and describe the cluster", () -> {
            AstyanaxConfigurationImpl conf = new AstyanaxConfigurationImpl()
                    .setDiscoveryType(NodeDiscoveryType.NONE)
                    .setConnectionPoolType(ConnectionPoolType.TOKEN_AWARE);
            clusterContext = new AstyanaxContext.Builder().forCluster("thriftd-astyanax")
                    .withAstyanaxConfiguration(conf)
                    .withConnectionPoolConfiguration(pool("cluster", host, port))
                    .withConnectionPoolMonitor(new CountingConnectionPoolMonitor())
                    .buildCluster(ThriftFamilyFactory.getInstance());
            clusterContext.start();
            cluster = clusterContext.getClient();
            keyspaceContext = new AstyanaxContext.Builder().forCluster("thriftd-astyanax").forKeyspace(KS)
                    .withAstyanaxConfiguration(conf)
                    .withConnectionPoolConfiguration(pool("keyspace", host, port))
                    .withConnectionPoolMonitor(new CountingConnectionPoolMonitor())
                    .buildKeyspace(ThriftFamilyFactory.getInstance());
            keyspaceContext.start();
            ks = keyspaceContext.getClient();
            isTrue(!cluster.describeClusterName().isEmpty(), "describe_cluster_name is empty");
            isTrue(cluster.getVersion().startsWith("19."), "describe_version " + cluster.getVersion());
            String partitioner = cluster.describePartitioner();
            isTrue(partitioner.endsWith(".RandomPartitioner"),
                    "these checks need the RandomPartitioner, the server has " + partitioner);
            isTrue(ksNames(cluster.describeKeyspaces()).contains("system"), "describe_keyspaces lacks system");
        });

        c.require("create the keyspace and its column families", () -> {
            if (ksNames(cluster.describeKeyspaces()).contains(KS)) {
                cluster.dropKeyspace(KS);
            }
            ks.createKeyspace(ImmutableMap.<String, Object>of(
                    "strategy_class", "SimpleStrategy",
                    "strategy_options", ImmutableMap.of("replication_factor", "1")));
            ks.createColumnFamily(STANDARD, ImmutableMap.<String, Object>of(
                    "comparator_type", "UTF8Type", "key_validation_class", "UTF8Type"));
            ks.createColumnFamily(STATIC, ImmutableMap.<String, Object>of(
                    "comparator_type", "UTF8Type",
                    "column_metadata", ImmutableMap.<String, Object>of(
                            "name", ImmutableMap.<String, Object>of("validation_class", "UTF8Type"),
                            "age", ImmutableMap.<String, Object>of("validation_class", "LongType"),
                            "code", ImmutableMap.<String, Object>of("validation_class", "AsciiType"))));
            ks.createColumnFamily(SUPER, ImmutableMap.<String, Object>of(
                    "column_type", "Super", "comparator_type", "UTF8Type", "subcomparator_type", "LongType"));
            ks.createColumnFamily(COMPOSITE, ImmutableMap.<String, Object>of(
                    "comparator_type", "CompositeType(UTF8Type, LongType)"));
            ks.createColumnFamily(LONGS, ImmutableMap.<String, Object>of("comparator_type", "LongType"));
            ks.createColumnFamily(TIMEUUIDS, ImmutableMap.<String, Object>of("comparator_type", "TimeUUIDType"));
            ks.createColumnFamily(ASCIIS, ImmutableMap.<String, Object>of("comparator_type", "AsciiType"));
            ks.createColumnFamily(INTEGERS, ImmutableMap.<String, Object>of("comparator_type", "IntegerType"));
            ks.createColumnFamily(ADDED, ImmutableMap.<String, Object>of("comparator_type", "BytesType"));
        });

        c.check("describe the keyspace, the ring and the schema versions", () -> {
            KeyspaceDefinition def = ks.describeKeyspace();
            isTrue(def.getStrategyClass().endsWith("SimpleStrategy"), "strategy " + def.getStrategyClass());
            eq("1", def.getStrategyOptions().get("replication_factor"), "replication_factor option");
            Map<String, ColumnFamilyDefinition> byName = new HashMap<>();
            for (ColumnFamilyDefinition cf : def.getColumnFamilyList()) {
                byName.put(cf.getName(), cf);
            }
            eq(Set.of("Standard", "Static", "Super", "Composite", "Longs", "TimeUUIDs", "Asciis", "Integers", "Added"),
                    byName.keySet(), "column families");
            eq("org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,"
                    + "org.apache.cassandra.db.marshal.LongType)", byName.get("Composite").getComparatorType(),
                    "Composite comparator");
            eq("Super", byName.get("Super").getFieldValue("COLUMN_TYPE"), "Super column type");
            eq("org.apache.cassandra.db.marshal.LongType", byName.get("Super").getFieldValue("SUBCOMPARATOR_TYPE"),
                    "Super subcomparator");
            eq("org.apache.cassandra.db.marshal.UTF8Type", byName.get("Standard").getKeyValidationClass(),
                    "Standard key validation class");
            Map<String, String> meta = new HashMap<>();
            for (ColumnDefinition cd : byName.get("Static").getColumnDefinitionList()) {
                meta.put(cd.getName(), cd.getValidationClass());
            }
            eq(Map.of("name", "org.apache.cassandra.db.marshal.UTF8Type",
                    "age", "org.apache.cassandra.db.marshal.LongType",
                    "code", "org.apache.cassandra.db.marshal.AsciiType"), meta, "Static column metadata");
            List<TokenRange> ring = ks.describeRing();
            isTrue(!ring.isEmpty(), "describe_ring answered no range");
            for (TokenRange r : ring) {
                isTrue(!r.getEndpoints().isEmpty(), "a range without endpoints: " + r);
            }
            Map<String, List<String>> versions = new HashMap<>(cluster.describeSchemaVersions());
            versions.remove("UNREACHABLE");
            eq(1, versions.size(), "schema versions " + versions);
        });

        long[] ttlWritten = {System.currentTimeMillis()};
        c.check("mutation batch with TTLs", () -> {
            // The reads must come within TTL seconds of the write: on a
            // machine so busy that they do not, the columns may rightly be
            // gone, and the write is made again (at most three times).
            for (int attempt = 1; ; attempt++) {
                ttlWritten[0] = System.currentTimeMillis();
                MutationBatch m = ks.prepareMutationBatch();
                m.withRow(STATIC, "ttl").putColumn("short", "gone soon", TTL).putColumn("long", "stays", null);
                m.withRow(STATIC, "ttl2").putColumn("only", "gone soon", TTL);
                m.execute();
                try {
                    Column<String> col = ks.prepareQuery(STATIC).getKey("ttl").getColumn("short").execute().getResult();
                    eq("gone soon", col.getStringValue(), "value");
                    Checks.ttlReadBack(TTL, col.getTtl());
                    eq(2, (int) ks.prepareQuery(STATIC).getKey("ttl").getCount().execute().getResult(), "columns");
                    return;
                } catch (Exception | AssertionError e) {
                    if (attempt == 3 || System.currentTimeMillis() - ttlWritten[0] < TTL * 1000L) {
                        throw e;
                    }
                }
            }
        });

        Set<String> allKeys = new HashSet<>(List.of("alice", "bob"));
        for (int r = 0; r < 40; r++) {
            allKeys.add(String.format("row%02d", r));
        }
        c.check("mutation batch over many rows, column query", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            for (int i = 0; i < 10; i++) {
                m.withRow(STANDARD, "alice").putColumn(String.format("c%02d", i), String.format("v%02d", i));
            }
            m.withRow(STANDARD, "bob").putColumn("b0", "x0").putColumn("b1", "x1").putColumn("b2", "x2");
            for (int r = 0; r < 40; r++) {
                m.withRow(STANDARD, String.format("row%02d", r)).putColumn("n", "" + r).putColumn("m", "x");
            }
            m.execute();
            eq("v03", ks.prepareQuery(STANDARD).getKey("alice").getColumn("c03").execute().getResult()
                    .getStringValue(), "alice/c03");
            fails("a column never written", "NotFound",
                    () -> ks.prepareQuery(STANDARD).getKey("alice").getColumn("nope").execute());
        });

        c.check("row queries: ranges, reversed, limits, names, counts", () -> {
            eq(List.of("c02", "c03", "c04", "c05"), names(ks.prepareQuery(STANDARD).getKey("alice")
                    .withColumnRange("c02", "c05", false, 100).execute().getResult()), "c02..c05");
            eq(List.of("c09", "c08", "c07"), names(ks.prepareQuery(STANDARD).getKey("alice")
                    .withColumnRange(new RangeBuilder().setReversed(true).setLimit(3).build()).execute().getResult()),
                    "last three reversed");
            eq(List.of("c05", "c04"), names(ks.prepareQuery(STANDARD).getKey("alice")
                    .withColumnRange("c05", "c00", true, 2).execute().getResult()), "two down from c05");
            eq(List.of("c01", "c07"), names(ks.prepareQuery(STANDARD).getKey("alice")
                    .withColumnSlice("c07", "c01", "zz").execute().getResult()), "by names");
            eq(10, (int) ks.prepareQuery(STANDARD).getKey("alice").getCount().execute().getResult(), "count");
            eq(3, (int) ks.prepareQuery(STANDARD).getKey("alice").withColumnRange("c02", "c04", false, 100)
                    .getCount().execute().getResult(), "count c02..c04");
            eq(0, ks.prepareQuery(STANDARD).getKey("nobody").execute().getResult().size(), "a row never written");
        });

        c.check("auto-paginated row query", () -> {
            RowQuery<String, String> q = ks.prepareQuery(STANDARD).getKey("alice")
                    .withColumnRange(new RangeBuilder().setLimit(3).build()).autoPaginate(true);
            List<String> all = new ArrayList<>();
            int pages = 0;
            ColumnList<String> page;
            while (!(page = q.execute().getResult()).isEmpty()) {
                all.addAll(names(page));
                isTrue(++pages <= 10, "more pages than columns");
            }
            eq(10, all.size(), "columns over all pages " + all);
            eq(4, pages, "pages of 3");
        });

        c.check("multiget (key slice) and its column counts", () -> {
            Rows<String, String> rows = ks.prepareQuery(STANDARD).getKeySlice("alice", "bob", "nobody")
                    .withColumnRange(new RangeBuilder().setLimit(100).build()).execute().getResult();
            eq(10, rows.getRow("alice").getColumns().size(), "alice");
            eq(List.of("b0", "b1", "b2"), names(rows.getRow("bob").getColumns()), "bob");
            Row<String, String> nobody = rows.getRow("nobody");
            isTrue(nobody == null || nobody.getColumns().isEmpty(), "nobody has columns");
            Map<String, Integer> counts = ks.prepareQuery(STANDARD).getKeySlice("alice", "bob")
                    .getColumnCounts().execute().getResult();
            eq(10, counts.get("alice"), "alice's count");
            eq(3, counts.get("bob"), "bob's count");
        });

        c.check("key range by keys and by tokens, in ring order", () -> {
            Rows<String, String> rows = ks.prepareQuery(STANDARD).getKeyRange("", "", null, null, 100)
                    .withColumnRange(new RangeBuilder().setLimit(1).build()).execute().getResult();
            List<String> keys = new ArrayList<>();
            for (Row<String, String> r : rows) {
                keys.add(r.getKey());
            }
            eq(allKeys, new HashSet<>(keys), "keys");
            eq(allKeys.size(), keys.size(), "rows (no key twice)");
            List<String> byToken = new ArrayList<>(keys);
            byToken.sort((a, b) -> token(a).compareTo(token(b)));
            eq(byToken, keys, "ring order");
            // (start, end] by token: the rows from the 6th to the 15th.
            String start = token(keys.get(4)).toString(), end = token(keys.get(14)).toString();
            List<String> part = new ArrayList<>();
            for (Row<String, String> r : ks.prepareQuery(STANDARD).getKeyRange(null, null, start, end, 100)
                    .execute().getResult()) {
                part.add(r.getKey());
            }
            eq(keys.subList(5, 15), part, "rows of the token range");
        });

        c.check("getAllRows pages by token through every row", () -> {
            List<String> seen = new ArrayList<>();
            for (Row<String, String> r : ks.prepareQuery(STANDARD).getAllRows().setRowLimit(7)
                    .withColumnRange(new RangeBuilder().setLimit(10).build()).execute().getResult()) {
                seen.add(r.getKey());
            }
            eq(allKeys.size(), seen.size(), "rows iterated " + seen);
            eq(allKeys, new HashSet<>(seen), "keys");
            // Several token ranges read in parallel, as bulk readers do.
            Set<String> parallel = Collections.synchronizedSet(new HashSet<>());
            ks.prepareQuery(STANDARD).getAllRows().setRowLimit(5).setConcurrencyLevel(4)
                    .withColumnRange(new RangeBuilder().setLimit(10).build())
                    .executeWithCallback(new com.netflix.astyanax.RowCallback<String, String>() {
                        @Override
                        public void success(Rows<String, String> rows) {
                            for (Row<String, String> r : rows) {
                                if (!parallel.add(r.getKey())) {
                                    throw new AssertionError("row " + r.getKey() + " twice");
                                }
                            }
                        }

                        @Override
                        public boolean failure(com.netflix.astyanax.connectionpool.exceptions.ConnectionException e) {
                            return false;
                        }
                    });
            eq(allKeys, parallel, "keys read in 4 token ranges");
        });

        c.check("delete a column and a row", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            m.withRow(STANDARD, "alice").deleteColumn("c00");
            m.withRow(STANDARD, "bob").delete();
            m.execute();
            eq(9, (int) ks.prepareQuery(STANDARD).getKey("alice").getCount().execute().getResult(), "alice's columns");
            eq(0, ks.prepareQuery(STANDARD).getKey("bob").execute().getResult().size(), "bob's columns");
            int rows = 0;
            for (Row<String, String> r : ks.prepareQuery(STANDARD).getAllRows().setRowLimit(10)
                    .withColumnRange(new RangeBuilder().setLimit(10).build()).execute().getResult()) {
                isTrue(!r.getKey().equals("bob"), "getAllRows returned the deleted row");
                rows++;
            }
            eq(allKeys.size() - 1, rows, "rows after deleting bob");
        });

        c.check("static column family: typed values and validation", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            m.withRow(STATIC, "ann").putColumn("name", "Ann Ångström").putColumn("age", 42L)
                    .putColumn("code", "AX-1", AsciiSerializer.get(), null)
                    .putColumn("other", new byte[] {1, 2, 3});
            m.execute();
            ColumnList<String> ann = ks.prepareQuery(STATIC).getKey("ann").execute().getResult();
            eq(List.of("age", "code", "name", "other"), names(ann), "columns");
            eq(42L, ann.getColumnByName("age").getLongValue(), "age");
            eq("Ann Ångström", ann.getColumnByName("name").getStringValue(), "name");
            fails("a 4-byte age", "failed validation", () -> {
                MutationBatch bad = ks.prepareMutationBatch();
                bad.withRow(STATIC, "ann").putColumn("age", 7);
                bad.execute();
            });
            eq(42L, ks.prepareQuery(STATIC).getKey("ann").getColumn("age").execute().getResult().getLongValue(),
                    "age after the refused write");
        });

        c.check("CompositeType(UTF8Type,LongType): AnnotatedCompositeSerializer ranges", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            String[][] names = {{"a", "1"}, {"a", "2"}, {"b", "-7"}, {"b", "1"}, {"b", "2"}, {"b", "3"},
                    {"b", "4"}, {"b", "40"}, {"c", "1"}, {"ba", "1"}};
            for (String[] n : names) {
                m.withRow(COMPOSITE, "comp").putColumn(new Name(n[0], Long.parseLong(n[1])), n[0] + ":" + n[1]);
            }
            m.execute();
            eq(List.of("a:1", "a:2", "b:-7", "b:1", "b:2", "b:3", "b:4", "b:40", "ba:1", "c:1"),
                    comp(ks.prepareQuery(COMPOSITE).getKey("comp").execute().getResult()), "every column in order");
            eq(List.of("b:2", "b:3", "b:4"), compRange(NAMES.buildRange().withPrefix("b").greaterThanEquals(2L)
                    .lessThanEquals(4L)), "b 2..4 inclusive");
            eq(List.of("b:3"), compRange(NAMES.buildRange().withPrefix("b").greaterThan(2L).lessThan(4L)),
                    "b 2..4 exclusive");
            eq(List.of("b:-7", "b:1", "b:2", "b:3", "b:4", "b:40"), compRange(NAMES.buildRange().withPrefix("b")
                    .greaterThanEquals(Long.MIN_VALUE).lessThanEquals(Long.MAX_VALUE)), "prefix b");
            eq(List.of("b:40", "b:4"), compRange(NAMES.buildRange().withPrefix("b").greaterThanEquals(1L)
                    .lessThanEquals(40L).reverse().limit(2)), "b 1..40 reversed, 2");
            Name first = ks.prepareQuery(COMPOSITE).getKey("comp").getColumn(new Name("b", 3L)).execute()
                    .getResult().getName();
            eq("b:3", first.toString(), "a column by its composite name");
        });

        c.check("super columns through column paths", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            ColumnListMutation<Long> sc1 = m.withRow(SUPER, "sup")
                    .withSuperColumn(new ColumnPath<Long>(LongSerializer.get()).append("sc1"));
            for (long i = 1; i <= 4; i++) {
                sc1.putColumn(i, "s" + i, null);
            }
            m.withRow(SUPER, "sup").withSuperColumn(new ColumnPath<Long>(LongSerializer.get()).append("sc2"))
                    .putColumn(-5L, "neg", null);
            m.execute();
            ColumnList<String> supers = ks.prepareQuery(SUPER).getKey("sup").execute().getResult();
            eq(List.of("sc1", "sc2"), names(supers), "super columns");
            // Astyanax answers a super column by iteration only.
            Map<String, Column<String>> byName = new HashMap<>();
            for (Column<String> sc : supers) {
                isTrue(sc.isParentColumn(), sc.getName() + " is not a super column");
                byName.put(sc.getName(), sc);
            }
            eq(List.of(1L, 2L, 3L, 4L), names(byName.get("sc1").getSubColumns(LongSerializer.get())),
                    "sc1's columns");
            eq("neg", byName.get("sc2").getSubColumns(LongSerializer.get()).getColumnByName(-5L)
                    .getStringValue(), "sc2/-5");
        });

        c.check("secondary indexes: a KEYS index at creation, searchWithIndex with EQ, GT and LT", () -> {
            ks.createColumnFamily(USERS, ImmutableMap.<String, Object>of(
                    "comparator_type", "UTF8Type",
                    "column_metadata", ImmutableMap.<String, Object>of(
                            "state", ImmutableMap.<String, Object>of("validation_class", "UTF8Type",
                                    "index_name", "users_state", "index_type", "KEYS"),
                            "age", ImmutableMap.<String, Object>of("validation_class", "LongType"))));
            ColumnDefinition state = columnDef("Users", "state");
            eq("KEYS", state.getIndexType(), "state's index type as described");
            eq("users_state", state.getIndexName(), "state's index name as described");
            loadUsers(USERS);

            List<String> ny = keysOf(search(USERS).addExpression().whereColumn("state").equals().value("NY").execute().getResult());
            eq(users(1, 4, 7, 10, 13, 16, 19, 22, 25, 28), sorted(ny), "the users of NY");
            // In the partitioner's order: the order of a key range.
            List<String> scan = keysOf(ks.prepareQuery(USERS).getKeyRange("", "", null, null, 100).execute().getResult());
            scan.retainAll(ny);
            eq(scan, ny, "the users of NY in ring order");
            eq(users(13, 16, 19, 22), sorted(keysOf(search(USERS).addExpression().whereColumn("state").equals().value("NY")
                    .addExpression().whereColumn("age").greaterThan().value(10L)
                    .addExpression().whereColumn("age").lessThan().value(25L).execute().getResult())), "NY, 10 < age < 25");
            eq(users(20, 23, 26), sorted(keysOf(search(USERS).addExpression().whereColumn("state").equals().value("TX")
                    .addExpression().whereColumn("age").greaterThanEquals().value(20L)
                    .addExpression().whereColumn("age").lessThanEquals().value(26L).execute().getResult())), "TX, 20 <= age <= 26");
            eq(List.of(), keysOf(search(USERS).addExpression().whereColumn("state").equals().value("WA").execute().getResult()),
                    "no user of WA");
            // A small slice of each matching row.
            Map<String, String> names = new HashMap<>();
            for (Row<String, String> r : search(USERS).withColumnSlice("name")
                    .addExpression().whereColumn("state").equals().value("CA")
                    .addExpression().whereColumn("age").lessThan().value(7L).execute().getResult()) {
                eq(1, r.getColumns().size(), "columns of " + r.getKey());
                names.put(r.getKey(), r.getColumns().getStringValue("name", null));
            }
            eq(Map.of("u00", "user 0", "u03", "user 3", "u06", "user 6"), names, "the names of CA under 7");
            fails("a clause without EQ on an indexed column", "No indexed columns present in index clause with operator EQ",
                    () -> search(USERS).addExpression().whereColumn("age").greaterThan().value(1L).execute());
        });

        c.check("secondary indexes: row limit, start key and autoPaginateRows", () -> {
            List<String> ca = keysOf(search(USERS).addExpression().whereColumn("state").equals().value("CA").execute().getResult());
            eq(users(0, 3, 6, 9, 12, 15, 18, 21, 24, 27), sorted(ca), "the users of CA");
            eq(ca.subList(0, 4), keysOf(search(USERS).setRowLimit(4).addExpression().whereColumn("state").equals().value("CA")
                    .execute().getResult()), "the first 4 of CA");
            eq(ca.subList(3, 7), keysOf(search(USERS).setRowLimit(4).setStartKey(ca.get(3))
                    .addExpression().whereColumn("state").equals().value("CA").execute().getResult()), "4 of CA from the fourth");
            // One query object: each execute returns the next page.
            com.netflix.astyanax.query.IndexQuery<String, String> q = search(USERS).setRowLimit(3).autoPaginateRows(true)
                    .addExpression().whereColumn("state").equals().value("CA");
            List<String> seen = new ArrayList<>();
            for (int pages = 0; pages < 20; pages++) {
                List<String> page = keysOf(q.execute().getResult());
                if (page.isEmpty()) {
                    break;
                }
                seen.addAll(page);
            }
            eq(ca, seen, "CA paged by autoPaginateRows");
        });

        c.check("secondary indexes: updates and deletions are seen by the next query", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            m.withRow(USERS, "u01").putColumn("state", "CA", null);
            m.withRow(USERS, "u04").deleteColumn("state");
            m.withRow(USERS, "u30").putColumn("state", "NY", null);
            m.withRow(USERS, "u10").putColumn("age", 99L, null);
            m.execute();
            ks.prepareColumnMutation(USERS, "u07", "state").deleteColumn().execute();
            MutationBatch gone = ks.prepareMutationBatch();
            gone.withRow(USERS, "u13").delete();
            gone.execute();
            eq(users(10, 16, 19, 22, 25, 28, 30), sorted(keysOf(search(USERS).addExpression().whereColumn("state").equals()
                    .value("NY").execute().getResult())), "the users of NY after the changes");
            eq(users(10, 28), sorted(keysOf(search(USERS).addExpression().whereColumn("state").equals().value("NY")
                    .addExpression().whereColumn("age").greaterThan().value(25L).execute().getResult())),
                    "NY, age > 25 after u10's age changed");
            isTrue(keysOf(search(USERS).addExpression().whereColumn("state").equals().value("CA").execute().getResult())
                    .contains("u01"), "u01 is not found in CA");
        });

        c.check("secondary indexes: an index added with updateColumnFamily to a family holding rows", () -> {
            ks.createColumnFamily(ACCOUNTS, ImmutableMap.<String, Object>of("comparator_type", "UTF8Type",
                    "column_metadata", ImmutableMap.<String, Object>of(
                            "age", ImmutableMap.<String, Object>of("validation_class", "LongType"))));
            loadUsers(ACCOUNTS);
            fails("an index query before the index", "No indexed columns present in index clause with operator EQ",
                    () -> search(ACCOUNTS).addExpression().whereColumn("state").equals().value("NY").execute());
            ColumnFamilyDefinition def = ks.describeKeyspace().getColumnFamily("Accounts");
            // A name of this run's: 1.2.19 remembers an index it built
            // by keyspace and name past a drop of the keyspace, and would
            // not build the index of a later run over the rows it holds.
            String name = "accounts_state_" + UUID.randomUUID().toString().substring(0, 8);
            def.addColumnDefinition(cluster.makeColumnDefinition().setName("state").setValidationClass("UTF8Type").setKeysIndex(name));
            cluster.updateColumnFamily(def);
            ColumnDefinition state = columnDef("Accounts", "state");
            eq("KEYS", state.getIndexType(), "the added index's type as described");
            eq(name, state.getIndexName(), "the added index's name as described");
            // The rows written before are found once the server has built
            // the index, which it may do in the background.
            List<String> want = users(1, 4, 7, 10, 13, 16, 19, 22, 25, 28);
            long deadline = System.currentTimeMillis() + 30000;
            while (!want.equals(sorted(keysOf(search(ACCOUNTS).addExpression().whereColumn("state").equals().value("NY")
                    .execute().getResult()))) && System.currentTimeMillis() < deadline) {
                Checks.sleep(200);
            }
            eq(want, sorted(keysOf(search(ACCOUNTS).addExpression().whereColumn("state").equals().value("NY")
                    .execute().getResult())), "the rows written before the index");
            ks.prepareColumnMutation(ACCOUNTS, "u02", "state").putValue("NY", null).execute();
            List<String> more = new ArrayList<>(want);
            more.add("u02");
            eq(sorted(more), sorted(keysOf(search(ACCOUNTS).addExpression().whereColumn("state").equals().value("NY")
                    .execute().getResult())), "a row written after the index");
        });

        c.check("counters: incrementCounterColumn, counter rows, deleteCounterColumn", () -> {
            ks.createColumnFamily(COUNTERS, ImmutableMap.<String, Object>of(
                    "comparator_type", "UTF8Type", "default_validation_class", "CounterColumnType"));
            ks.prepareColumnMutation(COUNTERS, "page", "views").incrementCounterColumn(5).execute();
            ks.prepareColumnMutation(COUNTERS, "page", "views").incrementCounterColumn(-2).execute();
            MutationBatch m = ks.prepareMutationBatch();
            m.withRow(COUNTERS, "page").incrementCounterColumn("likes", 7).incrementCounterColumn("shares", 1);
            m.withRow(COUNTERS, "other").incrementCounterColumn("views", 10);
            m.execute();
            eq(3L, ks.prepareQuery(COUNTERS).getKey("page").getColumn("views").execute().getResult().getLongValue(),
                    "views after +5 and -2");
            List<String> got = new ArrayList<>();
            for (Column<String> col : ks.prepareQuery(COUNTERS).getKey("page").execute().getResult()) {
                got.add(col.getName() + "=" + col.getLongValue());
            }
            eq(List.of("likes=7", "shares=1", "views=3"), got, "counter row page");
            ks.prepareColumnMutation(COUNTERS, "page", "shares").deleteCounterColumn().execute();
            fails("a deleted counter", "NotFound",
                    () -> ks.prepareQuery(COUNTERS).getKey("page").getColumn("shares").execute());
            fails("a counter into a plain family", "non commutative",
                    () -> ks.prepareColumnMutation(STANDARD, "page", "x").incrementCounterColumn(1).execute());
            // Eight threads add to one counter: the exact sum.
            Thread[] threads = new Thread[8];
            Throwable[] failed = new Throwable[1];
            for (int i = 0; i < threads.length; i++) {
                threads[i] = new Thread(() -> {
                    try {
                        for (int j = 0; j < 50; j++) {
                            ks.prepareColumnMutation(COUNTERS, "hot", "n").incrementCounterColumn(3).execute();
                        }
                    } catch (Throwable t) {
                        failed[0] = t;
                    }
                });
                threads[i].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            isTrue(failed[0] == null, "a thread's add failed: " + failed[0]);
            eq(8L * 50 * 3, ks.prepareQuery(COUNTERS).getKey("hot").getColumn("n").execute().getResult().getLongValue(),
                    "the hot counter after 400 adds of 3");
        });

        c.check("truncate a column family", () -> {
            isTrue(!ks.prepareQuery(COMPOSITE).getKey("comp").execute().getResult().isEmpty(), "Composite is empty");
            ks.truncateColumnFamily(COMPOSITE);
            eq(0, ks.prepareQuery(COMPOSITE).getKey("comp").execute().getResult().size(), "Composite after truncate");
            eq(9, (int) ks.prepareQuery(STANDARD).getKey("alice").getCount().execute().getResult(),
                    "another family after truncate");
        });

        c.check("LongType: numeric order and ranges", () -> {
            long[] vals = {5, -3, 0, Long.MIN_VALUE, Long.MAX_VALUE, 42, -100, 256};
            MutationBatch m = ks.prepareMutationBatch();
            for (long v : vals) {
                m.withRow(LONGS, "longs").putColumn(v, "v");
            }
            m.execute();
            eq(List.of(Long.MIN_VALUE, -100L, -3L, 0L, 5L, 42L, 256L, Long.MAX_VALUE),
                    names(ks.prepareQuery(LONGS).getKey("longs").execute().getResult()), "every column");
            eq(List.of(-3L, 0L, 5L, 42L), names(ks.prepareQuery(LONGS).getKey("longs")
                    .withColumnRange(-3L, 42L, false, 100).execute().getResult()), "-3..42");
        });

        c.check("TimeUUIDType: time order", () -> {
            long t0 = 1_300_000_000_000L;
            List<UUID> inOrder = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                inOrder.add(TimeUUIDUtils.getTimeUUID(t0 + i * 60_000L));
            }
            List<UUID> shuffled = new ArrayList<>(inOrder);
            Collections.shuffle(shuffled, new java.util.Random(7));
            MutationBatch m = ks.prepareMutationBatch();
            for (UUID u : shuffled) {
                m.withRow(TIMEUUIDS, "events").putColumn(u, u.toString());
            }
            m.execute();
            eq(inOrder, names(ks.prepareQuery(TIMEUUIDS).getKey("events").execute().getResult()), "every column");
            eq(inOrder.subList(1, 4), names(ks.prepareQuery(TIMEUUIDS).getKey("events")
                    .withColumnRange(inOrder.get(1), inOrder.get(3), false, 100).execute().getResult()),
                    "second to fourth");
            fails("a version 4 UUID name", "", () -> {
                MutationBatch bad = ks.prepareMutationBatch();
                bad.withRow(new ColumnFamily<>("TimeUUIDs", SS, UUIDSerializer.get()), "events")
                        .putColumn(UUID.randomUUID(), "v");
                bad.execute();
            });
        });

        c.check("AsciiType and IntegerType order", () -> {
            MutationBatch m = ks.prepareMutationBatch();
            for (String n : List.of("b", "A", "a", "Z", "0", "ab")) {
                m.withRow(ASCIIS, "ascii").putColumn(n, "v");
            }
            BigInteger big = BigInteger.TWO.pow(70);
            List<BigInteger> ints = List.of(big.negate(), BigInteger.valueOf(-1000), BigInteger.valueOf(-1),
                    BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(255), BigInteger.valueOf(256), big);
            List<BigInteger> shuffled = new ArrayList<>(ints);
            Collections.shuffle(shuffled, new java.util.Random(3));
            for (BigInteger v : shuffled) {
                m.withRow(INTEGERS, "ints").putColumn(v, "v");
            }
            m.execute();
            eq(List.of("0", "A", "Z", "a", "ab", "b"),
                    names(ks.prepareQuery(ASCIIS).getKey("ascii").execute().getResult()), "ASCII names");
            eq(ints, names(ks.prepareQuery(INTEGERS).getKey("ints").execute().getResult()), "integer names");
            fails("a non-ASCII name", "ascii", () -> {
                MutationBatch bad = ks.prepareMutationBatch();
                bad.withRow(new ColumnFamily<>("Asciis", SS, SS), "ascii").putColumn("é", "v");
                bad.execute();
            });
        });

        c.check("TTL: the columns expire", () -> {
            long wait = ttlWritten[0] + TTL * 1000L + 1500 - System.currentTimeMillis();
            if (wait > 0) {
                Checks.sleep(wait);
            }
            eq(List.of("long"), names(ks.prepareQuery(STATIC).getKey("ttl").execute().getResult()),
                    "ttl's columns after expiry");
            eq(1, (int) ks.prepareQuery(STATIC).getKey("ttl").getCount().execute().getResult(), "count after expiry");
            eq(0, ks.prepareQuery(STATIC).getKey("ttl2").execute().getResult().size(), "ttl2 after expiry");
        });

        c.check("drop a column family", () -> {
            ks.dropColumnFamily(ADDED);
            isTrue(ks.describeKeyspace().getColumnFamily("Added") == null, "Added is still described");
        });

        c.check("drop the keyspace", () -> {
            ks.dropKeyspace();
            isTrue(!ksNames(cluster.describeKeyspaces()).contains(KS), "describe_keyspaces still lists " + KS);
        });
    }

    // ---- helpers -------------------------------------------------------

    static final String[] STATES = {"CA", "NY", "TX"};

    ColumnDefinition columnDef(String cf, String name) throws Exception {
        for (ColumnDefinition cd : ks.describeKeyspace().getColumnFamily(cf).getColumnDefinitionList()) {
            if (cd.getName().equals(name)) {
                return cd;
            }
        }
        throw new AssertionError(cf + " describes no column " + name);
    }

    /** 30 users u00..u29: state STATES[i % 3], age i (LongType), name. */
    void loadUsers(ColumnFamily<String, String> cf) throws Exception {
        MutationBatch m = ks.prepareMutationBatch();
        for (int i = 0; i < 30; i++) {
            m.withRow(cf, String.format("u%02d", i)).putColumn("state", STATES[i % 3], null)
                    .putColumn("age", (long) i, null).putColumn("name", "user " + i, null);
        }
        m.execute();
    }

    /** searchWithIndex on cf: up to 100 rows of up to 10 columns. */
    com.netflix.astyanax.query.IndexQuery<String, String> search(ColumnFamily<String, String> cf) {
        return ks.prepareQuery(cf).searchWithIndex().setRowLimit(100).withColumnRange("", "", false, 10);
    }

    static List<String> users(int... ages) {
        List<String> out = new ArrayList<>();
        for (int a : ages) {
            out.add(String.format("u%02d", a));
        }
        return sorted(out);
    }

    static List<String> sorted(List<String> in) {
        List<String> out = new ArrayList<>(in);
        Collections.sort(out);
        return out;
    }

    static List<String> keysOf(Rows<String, String> rows) {
        List<String> out = new ArrayList<>();
        for (Row<String, String> r : rows) {
            out.add(r.getKey());
        }
        return out;
    }

    static Set<String> ksNames(List<KeyspaceDefinition> defs) {
        Set<String> out = new HashSet<>();
        for (KeyspaceDefinition d : defs) {
            out.add(d.getName());
        }
        return out;
    }

    static <C> List<C> names(ColumnList<C> cols) {
        List<C> out = new ArrayList<>();
        for (Column<C> col : cols) {
            out.add(col.getName());
        }
        return out;
    }

    static List<String> comp(ColumnList<Name> cols) {
        List<String> out = new ArrayList<>();
        for (Column<Name> col : cols) {
            out.add(col.getName().toString());
            eq(col.getName().toString(), col.getStringValue(), "the value beside its name");
        }
        return out;
    }

    List<String> compRange(com.netflix.astyanax.serializers.CompositeRangeBuilder range) throws Exception {
        return comp(ks.prepareQuery(COMPOSITE).getKey("comp").withColumnRange(range.build()).execute().getResult());
    }

    /** The RandomPartitioner's token of a UTF-8 key: abs(MD5) as a signed 128-bit number. */
    static BigInteger token(String key) {
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8));
            return new BigInteger(d).abs();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
