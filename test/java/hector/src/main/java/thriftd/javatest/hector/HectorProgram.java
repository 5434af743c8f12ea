package thriftd.javatest.hector;

import static thriftd.javatest.Checks.eq;
import static thriftd.javatest.Checks.fails;
import static thriftd.javatest.Checks.isTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
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

import me.prettyprint.cassandra.model.BasicColumnDefinition;
import me.prettyprint.cassandra.model.IndexedSlicesQuery;
import me.prettyprint.cassandra.serializers.AsciiSerializer;
import me.prettyprint.cassandra.serializers.BigIntegerSerializer;
import me.prettyprint.cassandra.serializers.ByteBufferSerializer;
import me.prettyprint.cassandra.serializers.CompositeSerializer;
import me.prettyprint.cassandra.serializers.IntegerSerializer;
import me.prettyprint.cassandra.serializers.LongSerializer;
import me.prettyprint.cassandra.serializers.StringSerializer;
import me.prettyprint.cassandra.service.CassandraHostConfigurator;
import me.prettyprint.cassandra.service.KeyIterator;
import me.prettyprint.cassandra.service.ThriftCfDef;
import me.prettyprint.cassandra.service.ThriftKsDef;
import me.prettyprint.cassandra.utils.TimeUUIDUtils;
import me.prettyprint.hector.api.Cluster;
import me.prettyprint.hector.api.Keyspace;
import me.prettyprint.hector.api.Serializer;
import me.prettyprint.hector.api.beans.AbstractComposite.ComponentEquality;
import me.prettyprint.hector.api.beans.ColumnSlice;
import me.prettyprint.hector.api.beans.Composite;
import me.prettyprint.hector.api.beans.HColumn;
import me.prettyprint.hector.api.beans.HCounterColumn;
import me.prettyprint.hector.api.beans.HSuperColumn;
import me.prettyprint.hector.api.beans.OrderedRows;
import me.prettyprint.hector.api.beans.Row;
import me.prettyprint.hector.api.beans.Rows;
import me.prettyprint.hector.api.beans.SuperSlice;
import me.prettyprint.hector.api.ddl.ColumnDefinition;
import me.prettyprint.hector.api.ddl.ColumnIndexType;
import me.prettyprint.hector.api.ddl.ColumnFamilyDefinition;
import me.prettyprint.hector.api.ddl.ColumnType;
import me.prettyprint.hector.api.ddl.ComparatorType;
import me.prettyprint.hector.api.ddl.KeyspaceDefinition;
import me.prettyprint.hector.api.factory.HFactory;
import me.prettyprint.hector.api.mutation.Mutator;
import me.prettyprint.hector.api.query.SliceQuery;
import thriftd.javatest.Checks;

/**
 * Hector 1.1-4 driving a 19.x server as an application does: the pool,
 * the schema API (waiting for schema agreement), mutators, every kind of
 * query, deletions, TTLs, composites, super columns, the typed
 * comparators, KEYS secondary indexes (IndexedSlicesQuery, range queries
 * with index expressions, an index added to a family holding rows) and
 * counters, then dropping what it made. Needs a RandomPartitioner
 * server; its keyspace is HectorTest (dropped first if a run left it).
 */
public final class HectorProgram {
    static final String KS = "HectorTest";
    static final StringSerializer SS = StringSerializer.get();
    static final LongSerializer LS = LongSerializer.get();
    /** Seconds the expiring columns live: long enough to be read back on a busy machine. */
    static final int TTL = 6;

    final Checks c = new Checks("hector");
    Cluster cluster;
    Keyspace ks;

    public static void main(String[] args) {
        String[] t = Checks.target(args, "HectorProgram");
        HectorProgram p = new HectorProgram();
        String aborted = null;
        try {
            p.run(t[0] + ":" + t[1]);
        } catch (Checks.Abort a) {
            aborted = a.getMessage();
        } finally {
            if (p.cluster != null) {
                HFactory.shutdownCluster(p.cluster);
            }
        }
        System.exit(p.c.finish(aborted));
    }

    /** The total of one counter of Counters. */
    private long counter(String key, String name) {
        return HFactory.createCounterColumnQuery(ks, SS, SS).setColumnFamily("Counters").setKey(key).setName(name)
                .execute().get().getValue();
    }

    /** A row of Counters as name=total, in name order. */
    private List<String> counterSlice(String key) {
        List<String> out = new ArrayList<>();
        for (HCounterColumn<String> col : HFactory.createCounterSliceQuery(ks, SS, SS).setColumnFamily("Counters")
                .setKey(key).setRange(null, null, false, 100).execute().get().getColumns()) {
            out.add(col.getName() + "=" + col.getValue());
        }
        return out;
    }

    void run(String hostPort) {
        c.require("connect through the pool and describe the cluster", () -> {
            CassandraHostConfigurator conf = new CassandraHostConfigurator(hostPort);
            conf.setMaxActive(4);
            conf.setAutoDiscoverHosts(false);
            conf.setCassandraThriftSocketTimeout(20000);
            conf.setMaxWaitTimeWhenExhausted(20000);
            cluster = HFactory.getOrCreateCluster("thriftd-hector", conf);
            String name = cluster.describeClusterName();
            isTrue(name != null && !name.isEmpty(), "describe_cluster_name is empty");
            String version = cluster.describeThriftVersion();
            isTrue(version.startsWith("19."), "describe_version " + version + " is not 19.x");
            String partitioner = cluster.describePartitioner();
            isTrue(partitioner.endsWith(".RandomPartitioner"),
                    "these checks need the RandomPartitioner, the server has " + partitioner);
            isTrue(names(cluster.describeKeyspaces()).contains("system"), "describe_keyspaces lacks system");
        });

        c.require("add a keyspace with its column families (SimpleStrategy, RF 1)", () -> {
            if (cluster.describeKeyspace(KS) != null) {
                cluster.dropKeyspace(KS, true);
            }
            List<ColumnFamilyDefinition> cfs = new ArrayList<>();
            ColumnFamilyDefinition standard = HFactory.createColumnFamilyDefinition(KS, "Standard", ComparatorType.UTF8TYPE);
            standard.setKeyValidationClass(ComparatorType.UTF8TYPE.getClassName());
            cfs.add(standard);
            cfs.add(HFactory.createColumnFamilyDefinition(KS, "Static", ComparatorType.UTF8TYPE, Arrays.asList(
                    column("name", ComparatorType.UTF8TYPE),
                    column("age", ComparatorType.LONGTYPE),
                    column("code", ComparatorType.ASCIITYPE))));
            ColumnFamilyDefinition sup = HFactory.createColumnFamilyDefinition(KS, "Super", ComparatorType.UTF8TYPE);
            sup.setColumnType(ColumnType.SUPER);
            sup.setSubComparatorType(ComparatorType.LONGTYPE);
            cfs.add(sup);
            ColumnFamilyDefinition comp = HFactory.createColumnFamilyDefinition(KS, "Composite", ComparatorType.COMPOSITETYPE);
            comp.setComparatorTypeAlias("(UTF8Type, LongType)");
            cfs.add(comp);
            cfs.add(HFactory.createColumnFamilyDefinition(KS, "Longs", ComparatorType.LONGTYPE));
            cfs.add(HFactory.createColumnFamilyDefinition(KS, "TimeUUIDs", ComparatorType.TIMEUUIDTYPE));
            cfs.add(HFactory.createColumnFamilyDefinition(KS, "Asciis", ComparatorType.ASCIITYPE));
            cfs.add(HFactory.createColumnFamilyDefinition(KS, "Integers", ComparatorType.INTEGERTYPE));
            KeyspaceDefinition def = HFactory.createKeyspaceDefinition(KS, ThriftKsDef.DEF_STRATEGY_CLASS, 1, cfs);
            String version = cluster.addKeyspace(def, true);
            isTrue(version != null && !version.isEmpty(), "system_add_keyspace answered no schema version");
            ks = HFactory.createKeyspace(KS, cluster);
        });

        c.check("describe the new keyspace", () -> {
            KeyspaceDefinition def = cluster.describeKeyspace(KS);
            isTrue(def != null, "describe_keyspace " + KS + " answered nothing");
            isTrue(def.getStrategyClass().endsWith("SimpleStrategy"), "strategy " + def.getStrategyClass());
            eq("1", def.getStrategyOptions().get("replication_factor"), "replication_factor option");
            Map<String, ColumnFamilyDefinition> byName = new HashMap<>();
            for (ColumnFamilyDefinition cf : def.getCfDefs()) {
                byName.put(cf.getName(), cf);
            }
            eq(new HashSet<>(Arrays.asList("Standard", "Static", "Super", "Composite", "Longs", "TimeUUIDs",
                    "Asciis", "Integers")), byName.keySet(), "column families");
            eq(ComparatorType.UTF8TYPE.getClassName(), byName.get("Standard").getKeyValidationClass(),
                    "Standard key validation class");
            eq(ColumnType.SUPER, byName.get("Super").getColumnType(), "Super column type");
            eq(ComparatorType.LONGTYPE.getClassName(), byName.get("Super").getSubComparatorType().getClassName(),
                    "Super subcomparator");
            eq("org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,"
                    + "org.apache.cassandra.db.marshal.LongType)",
                    byName.get("Composite").getComparatorType().getClassName(), "Composite comparator");
            eq(ComparatorType.TIMEUUIDTYPE.getClassName(), byName.get("TimeUUIDs").getComparatorType().getClassName(),
                    "TimeUUIDs comparator");
            eq(ComparatorType.INTEGERTYPE.getClassName(), byName.get("Integers").getComparatorType().getClassName(),
                    "Integers comparator");
            Map<String, String> meta = new HashMap<>();
            for (ColumnDefinition cd : byName.get("Static").getColumnMetadata()) {
                meta.put(SS.fromByteBuffer(cd.getName().duplicate()), cd.getValidationClass());
            }
            eq(Map.of("name", ComparatorType.UTF8TYPE.getClassName(), "age", ComparatorType.LONGTYPE.getClassName(),
                    "code", ComparatorType.ASCIITYPE.getClassName()), meta, "Static column metadata");
        });

        c.check("add a column family to the keyspace, schema versions agree", () -> {
            ColumnFamilyDefinition added = HFactory.createColumnFamilyDefinition(KS, "Added", ComparatorType.BYTESTYPE);
            cluster.addColumnFamily(added, true);
            isTrue(names(cluster.describeKeyspace(KS)).contains("Added"), "Added is not described");
            Map<String, List<String>> versions = new HashMap<>(cluster.describeSchemaVersions());
            versions.remove("UNREACHABLE");
            eq(1, versions.size(), "schema versions " + versions);
        });

        // Written now, read after the other checks: the wait costs nothing.
        long ttlWritten = System.currentTimeMillis();
        c.check("write with a TTL through a mutator", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            m.addInsertion("ttl", "Static", HFactory.createColumn("short", "gone soon", TTL, SS, SS));
            m.addInsertion("ttl", "Static", HFactory.createColumn("long", "stays", SS, SS));
            m.addInsertion("ttl2", "Static", HFactory.createColumn("only", "gone soon", TTL, SS, SS));
            m.execute();
            HColumn<String, String> col = HFactory.createColumnQuery(ks, SS, SS, SS)
                    .setColumnFamily("Static").setKey("ttl").setName("short").execute().get();
            isTrue(col != null, "the column with a TTL is not read back at once");
            eq("gone soon", col.getValue(), "value");
            Checks.ttlReadBack(TTL, col.getTtl());
            eq(2, count("Static", "ttl"), "columns before expiry");
        });

        c.check("batch insert through a mutator, read one column", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (int i = 0; i < 10; i++) {
                m.addInsertion("alice", "Standard", HFactory.createStringColumn(String.format("c%02d", i),
                        String.format("v%02d", i)));
            }
            for (int i = 0; i < 3; i++) {
                m.addInsertion("bob", "Standard", HFactory.createStringColumn("b" + i, "x" + i));
            }
            for (int r = 0; r < 20; r++) {
                m.addInsertion(String.format("row%02d", r), "Standard", HFactory.createStringColumn("n", "" + r));
            }
            m.execute();
            eq("v03", HFactory.createColumnQuery(ks, SS, SS, SS).setColumnFamily("Standard").setKey("alice")
                    .setName("c03").execute().get().getValue(), "alice/c03");
            isTrue(HFactory.createColumnQuery(ks, SS, SS, SS).setColumnFamily("Standard").setKey("alice")
                    .setName("nope").execute().get() == null, "a column never written was read");
        });

        c.check("slice queries: ranges, reversed, counts, names", () -> {
            eq(List.of("c02", "c03", "c04", "c05"), slice("alice", "c02", "c05", false, 100), "c02..c05");
            eq(List.of("c09", "c08", "c07"), slice("alice", "", "", true, 3), "last three reversed");
            eq(List.of("c05", "c06"), slice("alice", "c05", "", false, 2), "two from c05");
            eq(List.of("c05", "c04", "c03", "c02"), slice("alice", "c05", "c02", true, 100), "c05 down to c02");
            eq(List.of("c00"), slice("alice", "", "", false, 1), "first column");
            SliceQuery<String, String, String> q = HFactory.createSliceQuery(ks, SS, SS, SS)
                    .setColumnFamily("Standard").setKey("alice").setColumnNames("c07", "c01", "zz");
            eq(List.of("c01", "c07"), colNames(q.execute().get()), "by names");
            eq(List.of(), slice("nobody", "", "", false, 100), "a row never written");
        });

        c.check("count queries", () -> {
            eq(10, count("Standard", "alice"), "alice's columns");
            eq(3, (int) HFactory.createCountQuery(ks, SS, SS).setColumnFamily("Standard").setKey("alice")
                    .setRange("c02", "c04", 100).execute().get(), "c02..c04");
            eq(4, (int) HFactory.createCountQuery(ks, SS, SS).setColumnFamily("Standard").setKey("alice")
                    .setRange(null, null, 4).execute().get(), "count capped at 4");
            eq(0, count("Standard", "nobody"), "a row never written");
        });

        c.check("multiget slice", () -> {
            Rows<String, String, String> rows = HFactory.createMultigetSliceQuery(ks, SS, SS, SS)
                    .setColumnFamily("Standard").setKeys("alice", "bob", "nobody").setRange("", "", false, 100)
                    .execute().get();
            eq(3, rows.getCount(), "rows answered");
            eq(10, rows.getByKey("alice").getColumnSlice().getColumns().size(), "alice");
            eq(List.of("b0", "b1", "b2"), colNames(rows.getByKey("bob").getColumnSlice()), "bob");
            eq(0, rows.getByKey("nobody").getColumnSlice().getColumns().size(), "nobody");
        });

        Set<String> allKeys = new HashSet<>();
        allKeys.addAll(List.of("alice", "bob"));
        for (int r = 0; r < 20; r++) {
            allKeys.add(String.format("row%02d", r));
        }
        c.check("range slices: every row once, in RandomPartitioner token order", () -> {
            OrderedRows<String, String, String> rows = HFactory.createRangeSlicesQuery(ks, SS, SS, SS)
                    .setColumnFamily("Standard").setKeys("", "").setRange("", "", false, 2).setRowCount(100)
                    .execute().get();
            List<String> keys = new ArrayList<>();
            for (Row<String, String, String> row : rows) {
                keys.add(row.getKey());
            }
            eq(allKeys, new HashSet<>(keys), "keys");
            eq(allKeys.size(), keys.size(), "rows (no key twice)");
            List<String> byToken = new ArrayList<>(keys);
            byToken.sort((a, b) -> token(a).compareTo(token(b)));
            eq(byToken, keys, "ring order");
            eq(2, rows.getByKey("alice").getColumnSlice().getColumns().size(), "alice's columns, limited to 2");
            // A range that starts at a key.
            String third = keys.get(2);
            OrderedRows<String, String, String> rest = HFactory.createRangeSlicesQuery(ks, SS, SS, SS)
                    .setColumnFamily("Standard").setKeys(third, "").setRange("", "", false, 1).setRowCount(5)
                    .execute().get();
            eq(keys.subList(2, 7), keyList(rest), "5 rows from the third key on");
        });

        c.check("row count by paging with KeyIterator", () -> {
            int n = 0;
            Set<String> seen = new HashSet<>();
            for (String k : new KeyIterator<>(ks, "Standard", SS, null, null, 7)) {
                n++;
                seen.add(k);
            }
            eq(allKeys.size(), n, "keys iterated");
            eq(allKeys, seen, "keys");
        });

        c.check("delete a column and a row", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            m.addDeletion("alice", "Standard", "c00", SS);
            m.execute();
            isTrue(HFactory.createColumnQuery(ks, SS, SS, SS).setColumnFamily("Standard").setKey("alice")
                    .setName("c00").execute().get() == null, "deleted column read");
            eq(9, count("Standard", "alice"), "alice's columns after deleting one");
            m = HFactory.createMutator(ks, SS);
            m.addDeletion("bob", "Standard");
            m.execute();
            eq(List.of(), slice("bob", "", "", false, 100), "bob after deleting the row");
            OrderedRows<String, String, String> rows = HFactory.createRangeSlicesQuery(ks, SS, SS, SS)
                    .setColumnFamily("Standard").setKeys("", "").setRange("", "", false, 100).setRowCount(100)
                    .execute().get();
            Row<String, String, String> bob = rows.getByKey("bob");
            isTrue(bob == null || bob.getColumnSlice().getColumns().isEmpty(),
                    "the deleted row still has columns in a range slice");
            int live = 0;
            for (String ignored : new KeyIterator<>(ks, "Standard", SS, null, null, 100)) {
                live++;
            }
            eq(allKeys.size() - 1, live, "rows with columns after deleting bob");
        });

        c.check("static column family: typed values and their validation", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            m.addInsertion("ann", "Static", HFactory.createColumn("name", "Ann Ångström", SS, SS));
            m.addInsertion("ann", "Static", HFactory.createColumn("age", 42L, SS, LS));
            m.addInsertion("ann", "Static", HFactory.createColumn("code", "AX-1", SS, AsciiSerializer.get()));
            m.addInsertion("ann", "Static", HFactory.createColumn("other", new byte[] {1, 2, 3}, SS,
                    me.prettyprint.cassandra.serializers.BytesArraySerializer.get()));
            m.execute();
            eq(42L, HFactory.createColumnQuery(ks, SS, SS, LS).setColumnFamily("Static").setKey("ann")
                    .setName("age").execute().get().getValue(), "age");
            eq("Ann Ångström", HFactory.createColumnQuery(ks, SS, SS, SS).setColumnFamily("Static").setKey("ann")
                    .setName("name").execute().get().getValue(), "name");
            eq(List.of("age", "code", "name", "other"), slice("Static", "ann", "", "", false, 100), "columns");
            fails("a 4-byte age", "failed validation", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("ann", "Static", HFactory.createColumn("age", 7, SS, IntegerSerializer.get()));
                bad.execute();
            });
            fails("a non-ASCII code", "failed validation", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("ann", "Static", HFactory.createColumn("code", "é", SS, SS));
                bad.execute();
            });
            eq(42L, HFactory.createColumnQuery(ks, SS, SS, LS).setColumnFamily("Static").setKey("ann")
                    .setName("age").execute().get().getValue(), "age after the refused writes");
        });

        c.check("super columns: write, read, sub-slice, delete", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            List<HColumn<Long, String>> sub1 = new ArrayList<>();
            for (long i = 1; i <= 5; i++) {
                sub1.add(HFactory.createColumn(i, "s" + i, LS, SS));
            }
            m.addInsertion("sup", "Super", HFactory.createSuperColumn("sc1", sub1, SS, LS, SS));
            m.addInsertion("sup", "Super", HFactory.createSuperColumn("sc2",
                    List.of(HFactory.createColumn(-10L, "neg", LS, SS)), SS, LS, SS));
            m.addInsertion("sup", "Super", HFactory.createSuperColumn("sc3",
                    List.of(HFactory.createColumn(0L, "zero", LS, SS)), SS, LS, SS));
            m.execute();
            HSuperColumn<String, Long, String> sc1 = HFactory.createSuperColumnQuery(ks, SS, SS, LS, SS)
                    .setColumnFamily("Super").setKey("sup").setSuperName("sc1").execute().get();
            isTrue(sc1 != null, "sc1 not found");
            eq(5, sc1.getColumns().size(), "sc1's columns");
            eq("s3", sc1.getSubColumnByName(3L).getValue(), "sc1/3");
            List<Long> sub = new ArrayList<>();
            for (HColumn<Long, String> col : HFactory.createSubSliceQuery(ks, SS, SS, LS, SS)
                    .setColumnFamily("Super").setKey("sup").setSuperColumn("sc1").setRange(2L, 4L, false, 100)
                    .execute().get().getColumns()) {
                sub.add(col.getName());
            }
            eq(List.of(2L, 3L, 4L), sub, "sc1 sub-slice 2..4");
            SuperSlice<String, Long, String> all = HFactory.createSuperSliceQuery(ks, SS, SS, LS, SS)
                    .setColumnFamily("Super").setKey("sup").setRange("", "", true, 2).execute().get();
            List<String> supers = new ArrayList<>();
            for (HSuperColumn<String, Long, String> sc : all.getSuperColumns()) {
                supers.add(sc.getName());
            }
            eq(List.of("sc3", "sc2"), supers, "the last two super columns, reversed");
            m = HFactory.createMutator(ks, SS);
            m.subDelete("sup", "Super", "sc1", 3L, SS, LS);
            m = HFactory.createMutator(ks, SS);
            m.addSuperDelete("sup", "Super", "sc2", SS);
            m.execute();
            sc1 = HFactory.createSuperColumnQuery(ks, SS, SS, LS, SS)
                    .setColumnFamily("Super").setKey("sup").setSuperName("sc1").execute().get();
            eq(4, sc1.getColumns().size(), "sc1's columns after deleting 3");
            isTrue(sc1.getSubColumnByName(3L) == null, "deleted sub column read");
            isTrue(HFactory.createSuperColumnQuery(ks, SS, SS, LS, SS).setColumnFamily("Super").setKey("sup")
                    .setSuperName("sc2").execute().get() == null, "deleted super column read");
            eq(2, (int) HFactory.createSuperCountQuery(ks, SS, SS).setColumnFamily("Super").setKey("sup")
                    .setRange(null, null, 100).execute().get(), "super columns left");
        });

        c.check("CompositeType(UTF8Type,LongType): prefix slices with ComponentEquality", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            String[][] names = {{"a", "1"}, {"a", "2"}, {"b", "-7"}, {"b", "1"}, {"b", "2"}, {"b", "3"},
                    {"b", "4"}, {"b", "40"}, {"c", "1"}, {"ba", "1"}};
            for (String[] n : names) {
                m.addInsertion("comp", "Composite", HFactory.createColumn(composite(n[0], Long.parseLong(n[1])),
                        n[0] + ":" + n[1], CompositeSerializer.get(), SS));
            }
            m.execute();
            eq(List.of("a:1", "a:2", "b:-7", "b:1", "b:2", "b:3", "b:4", "b:40", "ba:1", "c:1"),
                    compSlice(new Composite(), new Composite(), false, 100), "every column in order");
            eq(List.of("b:-7", "b:1", "b:2", "b:3", "b:4", "b:40"),
                    compSlice(prefix("b", ComponentEquality.EQUAL), prefix("b", ComponentEquality.GREATER_THAN_EQUAL),
                            false, 100), "prefix b");
            eq(List.of("b:2", "b:3", "b:4"),
                    compSlice(composite("b", 2L), bound("b", 4L, ComponentEquality.GREATER_THAN_EQUAL), false, 100),
                    "b:2..b:4 inclusive");
            eq(List.of("b:3"),
                    compSlice(bound("b", 2L, ComponentEquality.GREATER_THAN_EQUAL),
                            bound("b", 4L, ComponentEquality.LESS_THAN_EQUAL), false, 100),
                    "b:2..b:4 exclusive");
            eq(List.of("b:40", "b:4", "b:3"),
                    compSlice(prefix("b", ComponentEquality.GREATER_THAN_EQUAL), prefix("b", ComponentEquality.EQUAL),
                            true, 3), "prefix b reversed, 3");
            eq(List.of("ba:1", "c:1"),
                    compSlice(prefix("b", ComponentEquality.GREATER_THAN_EQUAL), new Composite(), false, 100),
                    "after prefix b");
            eq(6, (int) HFactory.createCountQuery(ks, SS, CompositeSerializer.get()).setColumnFamily("Composite")
                    .setKey("comp").setRange(prefix("b", ComponentEquality.EQUAL),
                            prefix("b", ComponentEquality.GREATER_THAN_EQUAL), 100).execute().get(), "count prefix b");
        });

        c.check("LongType: numeric order and ranges", () -> {
            long[] vals = {5, -3, 0, Long.MIN_VALUE, Long.MAX_VALUE, 42, -100, 256};
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (long v : vals) {
                m.addInsertion("longs", "Longs", HFactory.createColumn(v, "v", LS, SS));
            }
            m.execute();
            eq(List.of(Long.MIN_VALUE, -100L, -3L, 0L, 5L, 42L, 256L, Long.MAX_VALUE),
                    typedSlice("Longs", "longs", LS, null, null, false, 100), "every column");
            eq(List.of(-3L, 0L, 5L, 42L), typedSlice("Longs", "longs", LS, -3L, 42L, false, 100), "-3..42");
            eq(List.of(Long.MAX_VALUE, 256L), typedSlice("Longs", "longs", LS, null, null, true, 2), "top two");
            fails("a 4-byte LongType name", "", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("longs", "Longs", HFactory.createColumn(7, "v", IntegerSerializer.get(), SS));
                bad.execute();
            });
        });

        c.check("TimeUUIDType: time order", () -> {
            long t0 = 1_300_000_000_000L;
            List<UUID> inOrder = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                inOrder.add(TimeUUIDUtils.getTimeUUID(t0 + i * 60_000L));
            }
            List<UUID> shuffled = new ArrayList<>(inOrder);
            Collections.shuffle(shuffled, new java.util.Random(7));
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (UUID u : shuffled) {
                m.addInsertion("events", "TimeUUIDs", HFactory.createColumn(u, u.toString(), me.prettyprint.cassandra.serializers.UUIDSerializer.get(), SS));
            }
            m.execute();
            eq(inOrder, typedSlice("TimeUUIDs", "events", me.prettyprint.cassandra.serializers.UUIDSerializer.get(), null, null, false, 100),
                    "every column");
            eq(inOrder.subList(1, 4), typedSlice("TimeUUIDs", "events", me.prettyprint.cassandra.serializers.UUIDSerializer.get(), inOrder.get(1),
                    inOrder.get(3), false, 100), "second to fourth");
            fails("a random (version 4) UUID name", "", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("events", "TimeUUIDs", HFactory.createColumn(UUID.randomUUID(), "v",
                        me.prettyprint.cassandra.serializers.UUIDSerializer.get(), SS));
                bad.execute();
            });
        });

        c.check("AsciiType: byte order, non-ASCII refused", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (String n : List.of("b", "A", "a", "Z", "0", "ab")) {
                m.addInsertion("ascii", "Asciis", HFactory.createColumn(n, "v", AsciiSerializer.get(), SS));
            }
            m.execute();
            eq(List.of("0", "A", "Z", "a", "ab", "b"),
                    typedSlice("Asciis", "ascii", AsciiSerializer.get(), null, null, false, 100), "every column");
            fails("a non-ASCII name", "ascii", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("ascii", "Asciis", HFactory.createColumn("é", "v", SS, SS));
                bad.execute();
            });
        });

        c.check("IntegerType: arbitrary-precision order", () -> {
            BigInteger big = BigInteger.TWO.pow(70);
            List<BigInteger> vals = List.of(big.negate(), BigInteger.valueOf(-1000), BigInteger.valueOf(-1),
                    BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(255), BigInteger.valueOf(256), big);
            List<BigInteger> shuffled = new ArrayList<>(vals);
            Collections.shuffle(shuffled, new java.util.Random(3));
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (BigInteger v : shuffled) {
                m.addInsertion("ints", "Integers", HFactory.createColumn(v, "v", BigIntegerSerializer.get(), SS));
            }
            m.execute();
            eq(vals, typedSlice("Integers", "ints", BigIntegerSerializer.get(), null, null, false, 100), "every column");
            eq(vals.subList(2, 6), typedSlice("Integers", "ints", BigIntegerSerializer.get(), BigInteger.valueOf(-1),
                    BigInteger.valueOf(255), false, 100), "-1..255");
        });

        c.check("UTF8Type: multi-byte names in byte order", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            for (String n : List.of("日本", "z", "é", "A")) {
                m.addInsertion("utf8", "Standard", HFactory.createStringColumn(n, n));
            }
            m.execute();
            eq(List.of("A", "z", "é", "日本"), slice("utf8", "", "", false, 100), "every column");
            fails("a name that is not UTF-8", "", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("utf8", "Standard", HFactory.createColumn(new byte[] {(byte) 0xff, (byte) 0xfe},
                        "v", me.prettyprint.cassandra.serializers.BytesArraySerializer.get(), SS));
                bad.execute();
            });
        });

        c.check("update a column family: new column metadata is enforced", () -> {
            ColumnFamilyDefinition current = null;
            for (ColumnFamilyDefinition cf : cluster.describeKeyspace(KS).getCfDefs()) {
                if (cf.getName().equals("Static")) {
                    current = cf;
                }
            }
            isTrue(current != null, "Static is not described");
            ThriftCfDef updated = new ThriftCfDef(current);
            updated.addColumnDefinition(column("email", ComparatorType.UTF8TYPE));
            cluster.updateColumnFamily(updated, true);
            Set<String> meta = new HashSet<>();
            for (ColumnFamilyDefinition cf : cluster.describeKeyspace(KS).getCfDefs()) {
                if (cf.getName().equals("Static")) {
                    for (ColumnDefinition cd : cf.getColumnMetadata()) {
                        meta.add(SS.fromByteBuffer(cd.getName().duplicate()));
                    }
                }
            }
            eq(Set.of("name", "age", "code", "email"), meta, "Static's column metadata after the update");
            fails("bytes that are not UTF-8 in email", "failed validation", () -> {
                Mutator<String> bad = HFactory.createMutator(ks, SS);
                bad.addInsertion("ann", "Static", HFactory.createColumn("email", new byte[] {(byte) 0xff}, SS,
                        me.prettyprint.cassandra.serializers.BytesArraySerializer.get()));
                bad.execute();
            });
            eq(42L, HFactory.createColumnQuery(ks, SS, SS, LS).setColumnFamily("Static").setKey("ann")
                    .setName("age").execute().get().getValue(), "data kept across the update");
        });

        c.check("secondary indexes: a KEYS index at creation, IndexedSlicesQuery with EQ, GT and LT", () -> {
            ColumnFamilyDefinition users = HFactory.createColumnFamilyDefinition(KS, "Users", ComparatorType.UTF8TYPE,
                    Arrays.asList(indexed("state", "users_state"), column("age", ComparatorType.LONGTYPE)));
            cluster.addColumnFamily(users, true);
            ColumnDefinition state = columnDef("Users", "state");
            eq(ColumnIndexType.KEYS, state.getIndexType(), "state's index type as described");
            eq("users_state", state.getIndexName(), "state's index name as described");
            loadUsers("Users");

            List<String> ny = keysOf(usersQuery("Users").addEqualsExpression("state", s("NY")).execute().get());
            eq(users(1, 4, 7, 10, 13, 16, 19, 22, 25, 28), sorted(ny), "the users of NY");
            // In the partitioner's order: the order of a range scan.
            List<String> scan = keysOf(HFactory.createRangeSlicesQuery(ks, SS, SS, ByteBufferSerializer.get())
                    .setColumnFamily("Users").setKeys("", "").setRange(null, null, false, 10).setRowCount(100).execute().get());
            scan.retainAll(ny);
            eq(scan, ny, "the users of NY in ring order");
            eq(users(13, 16, 19, 22), sorted(keysOf(usersQuery("Users").addEqualsExpression("state", s("NY"))
                    .addGtExpression("age", l(10)).addLtExpression("age", l(25)).execute().get())), "NY, 10 < age < 25");
            eq(users(20, 23, 26), sorted(keysOf(usersQuery("Users").addEqualsExpression("state", s("TX"))
                    .addGteExpression("age", l(20)).addLteExpression("age", l(26)).execute().get())), "TX, 20 <= age <= 26");
            eq(List.of(), keysOf(usersQuery("Users").addEqualsExpression("state", s("WA")).execute().get()), "no user of WA");
            // A small slice of each matching row.
            Map<String, String> names = new HashMap<>();
            for (Row<String, String, ByteBuffer> r : usersQuery("Users").setColumnNames("name")
                    .addEqualsExpression("state", s("CA")).addLtExpression("age", l(7)).execute().get()) {
                eq(1, r.getColumnSlice().getColumns().size(), "columns of " + r.getKey());
                names.put(r.getKey(), SS.fromByteBuffer(r.getColumnSlice().getColumnByName("name").getValue()));
            }
            eq(Map.of("u00", "user 0", "u03", "user 3", "u06", "user 6"), names, "the names of CA under 7");
            fails("a clause without EQ on an indexed column", "No indexed columns present in index clause with operator EQ",
                    () -> usersQuery("Users").addGtExpression("age", l(1)).execute());
        });

        c.check("secondary indexes: start key paging, row count, get_range_slices with a row filter", () -> {
            List<String> ca = keysOf(usersQuery("Users").addEqualsExpression("state", s("CA")).execute().get());
            eq(users(0, 3, 6, 9, 12, 15, 18, 21, 24, 27), sorted(ca), "the users of CA");
            eq(ca.subList(0, 4), keysOf(usersQuery("Users").addEqualsExpression("state", s("CA")).setRowCount(4)
                    .execute().get()), "the first 4 of CA");
            // Pages from the last key seen, which comes back first.
            List<String> seen = new ArrayList<>();
            String start = "";
            for (int pages = 0; pages < 20; pages++) {
                List<String> page = keysOf(usersQuery("Users").addEqualsExpression("state", s("CA")).setStartKey(start)
                        .setRowCount(4).execute().get());
                if (!seen.isEmpty()) {
                    eq(seen.get(seen.size() - 1), page.get(0), "a page's first key");
                    page = page.subList(1, page.size());
                }
                seen.addAll(page);
                if (page.size() < 3) {
                    break;
                }
                start = seen.get(seen.size() - 1);
            }
            eq(ca, seen, "CA paged by 4");
            List<String> filtered = keysOf(HFactory.createRangeSlicesQuery(ks, SS, SS, ByteBufferSerializer.get())
                    .setColumnFamily("Users").setKeys("", "").setRange(null, null, false, 10).setRowCount(100)
                    .addEqualsExpression("state", s("TX")).addGtExpression("age", l(15)).execute().get());
            eq(users(17, 20, 23, 26, 29), sorted(filtered), "a range of TX, age > 15");
            eq(keysOf(usersQuery("Users").addEqualsExpression("state", s("TX")).addGtExpression("age", l(15)).execute().get()),
                    filtered, "the range and the index query in the same order");
        });

        c.check("secondary indexes: updates and deletions are seen by the next query", () -> {
            Mutator<String> m = HFactory.createMutator(ks, SS);
            m.addInsertion("u01", "Users", HFactory.createStringColumn("state", "CA"));
            m.addDeletion("u04", "Users", "state", SS);
            m.addDeletion("u07", "Users");
            m.addInsertion("u30", "Users", HFactory.createStringColumn("state", "NY"));
            m.addInsertion("u10", "Users", HFactory.createColumn("age", 99L, SS, LS));
            m.execute();
            eq(users(10, 13, 16, 19, 22, 25, 28, 30), sorted(keysOf(usersQuery("Users")
                    .addEqualsExpression("state", s("NY")).execute().get())), "the users of NY after the changes");
            eq(users(10, 28), sorted(keysOf(usersQuery("Users").addEqualsExpression("state", s("NY"))
                    .addGtExpression("age", l(25)).execute().get())), "NY, age > 25 after u10's age changed");
            isTrue(keysOf(usersQuery("Users").addEqualsExpression("state", s("CA")).execute().get()).contains("u01"),
                    "u01 is not found in CA");
        });

        c.check("secondary indexes: an index added with updateColumnFamily to a family holding rows", () -> {
            cluster.addColumnFamily(HFactory.createColumnFamilyDefinition(KS, "Accounts", ComparatorType.UTF8TYPE,
                    Arrays.asList(column("age", ComparatorType.LONGTYPE))), true);
            loadUsers("Accounts");
            fails("an index query before the index", "No indexed columns present in index clause with operator EQ",
                    () -> usersQuery("Accounts").addEqualsExpression("state", s("NY")).execute());
            ColumnFamilyDefinition current = null;
            for (ColumnFamilyDefinition cf : cluster.describeKeyspace(KS).getCfDefs()) {
                if (cf.getName().equals("Accounts")) {
                    current = cf;
                }
            }
            ThriftCfDef updated = new ThriftCfDef(current);
            // Hector sends the index type only with an index name. A name
            // of this run's: 1.2.19 remembers an index it built by
            // keyspace and name past a drop of the keyspace, and would not
            // build the index of a later run over the rows it holds.
            String name = "accounts_state_" + UUID.randomUUID().toString().substring(0, 8);
            updated.addColumnDefinition(indexed("state", name));
            cluster.updateColumnFamily(updated, true);
            ColumnDefinition state = columnDef("Accounts", "state");
            eq(ColumnIndexType.KEYS, state.getIndexType(), "the added index's type as described");
            eq(name, state.getIndexName(), "the added index's name as described");
            // The rows written before are found once the server has built
            // the index, which it may do in the background.
            List<String> want = users(1, 4, 7, 10, 13, 16, 19, 22, 25, 28);
            long deadline = System.currentTimeMillis() + 30000;
            while (!want.equals(sorted(keysOf(usersQuery("Accounts").addEqualsExpression("state", s("NY")).execute().get())))
                    && System.currentTimeMillis() < deadline) {
                Checks.sleep(200);
            }
            eq(want, sorted(keysOf(usersQuery("Accounts").addEqualsExpression("state", s("NY")).execute().get())),
                    "the rows written before the index");
            HFactory.createMutator(ks, SS).insert("u02", "Accounts", HFactory.createStringColumn("state", "NY"));
            List<String> more = new ArrayList<>(want);
            more.add("u02");
            eq(sorted(more), sorted(keysOf(usersQuery("Accounts").addEqualsExpression("state", s("NY")).execute().get())),
                    "a row written after the index");
        });

        c.check("counters: incrementCounter, CounterQuery, counter slices, deleteCounter", () -> {
            ColumnFamilyDefinition counters = HFactory.createColumnFamilyDefinition(KS, "Counters", ComparatorType.UTF8TYPE);
            counters.setDefaultValidationClass(ComparatorType.COUNTERTYPE.getClassName());
            cluster.addColumnFamily(counters, true);
            Mutator<String> m = HFactory.createMutator(ks, SS);
            m.incrementCounter("page", "Counters", "views", 5L);
            m.decrementCounter("page", "Counters", "views", 2L);
            m.addCounter("page", "Counters", HFactory.createCounterColumn("likes", 7L));
            m.addCounter("page", "Counters", HFactory.createCounterColumn("shares", 1L));
            m.addCounter("other", "Counters", HFactory.createCounterColumn("views", 10L));
            m.execute();
            eq(3L, counter("page", "views"), "views after +5 and -2");
            eq(List.of("likes=7", "shares=1", "views=3"), counterSlice("page"), "counter slice of page");
            m.deleteCounter("page", "Counters", "shares", SS);
            isTrue(HFactory.createCounterColumnQuery(ks, SS, SS).setColumnFamily("Counters").setKey("page")
                    .setName("shares").execute().get() == null, "a deleted counter is still read");
            fails("a counter into a plain family", "non commutative",
                    () -> HFactory.createMutator(ks, SS).incrementCounter("page", "Standard", "x", 1L));
            fails("a plain column into a counter family", "commutative",
                    () -> HFactory.createMutator(ks, SS).insert("page", "Counters", HFactory.createStringColumn("x", "y")));
            // Eight threads add to one counter: the exact sum.
            Thread[] threads = new Thread[8];
            Throwable[] failed = new Throwable[1];
            for (int i = 0; i < threads.length; i++) {
                threads[i] = new Thread(() -> {
                    try {
                        Mutator<String> tm = HFactory.createMutator(ks, SS);
                        for (int j = 0; j < 50; j++) {
                            tm.incrementCounter("hot", "Counters", "n", 3L);
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
            eq(8L * 50 * 3, counter("hot", "n"), "the hot counter after 400 adds of 3");
        });

        c.check("describe the ring, truncate a column family", () -> {
            List<org.apache.cassandra.thrift.TokenRange> ring = cluster.describeRing(KS);
            isTrue(!ring.isEmpty(), "describe_ring answered no range");
            for (org.apache.cassandra.thrift.TokenRange r : ring) {
                isTrue(!r.getEndpoints().isEmpty(), "a range without endpoints: " + r);
            }
            isTrue(!typedSlice("Longs", "longs", LS, null, null, false, 100).isEmpty(), "Longs is empty already");
            cluster.truncate(KS, "Longs");
            eq(List.of(), typedSlice("Longs", "longs", LS, null, null, false, 100), "Longs after truncate");
            eq(9, count("Standard", "alice"), "another family after truncate");
        });

        c.check("TTL: the columns expire", () -> {
            long wait = ttlWritten + TTL * 1000L + 1500 - System.currentTimeMillis();
            if (wait > 0) {
                Checks.sleep(wait);
            }
            isTrue(HFactory.createColumnQuery(ks, SS, SS, SS).setColumnFamily("Static").setKey("ttl")
                    .setName("short").execute().get() == null, "the expired column is still read");
            eq(List.of("long"), slice("Static", "ttl", "", "", false, 100), "ttl's columns after expiry");
            eq(1, count("Static", "ttl"), "count after expiry");
            eq(List.of(), slice("Static", "ttl2", "", "", false, 100), "ttl2 after expiry");
        });

        c.check("drop a column family", () -> {
            cluster.dropColumnFamily(KS, "Added", true);
            isTrue(!names(cluster.describeKeyspace(KS)).contains("Added"), "Added is still described");
            fails("a read of the dropped family", "Added", () -> slice("Added", "k", "", "", false, 10));
        });

        c.check("drop the keyspace", () -> {
            cluster.dropKeyspace(KS, true);
            isTrue(cluster.describeKeyspace(KS) == null, "the dropped keyspace is still described");
            isTrue(!names(cluster.describeKeyspaces()).contains(KS), "describe_keyspaces still lists it");
        });
    }

    // ---- helpers -------------------------------------------------------

    static final String[] STATES = {"CA", "NY", "TX"};

    /** A UTF8Type column with a KEYS index. */
    static ColumnDefinition indexed(String name, String indexName) {
        BasicColumnDefinition d = new BasicColumnDefinition();
        d.setName(SS.toByteBuffer(name));
        d.setValidationClass(ComparatorType.UTF8TYPE.getClassName());
        d.setIndexType(ColumnIndexType.KEYS);
        d.setIndexName(indexName);
        return d;
    }

    ColumnDefinition columnDef(String cf, String name) {
        for (ColumnFamilyDefinition d : cluster.describeKeyspace(KS).getCfDefs()) {
            if (d.getName().equals(cf)) {
                for (ColumnDefinition cd : d.getColumnMetadata()) {
                    if (SS.fromByteBuffer(cd.getName().duplicate()).equals(name)) {
                        return cd;
                    }
                }
            }
        }
        throw new AssertionError(cf + " describes no column " + name);
    }

    /** 30 users u00..u29: state STATES[i % 3], age i (LongType), name. */
    void loadUsers(String cf) {
        Mutator<String> m = HFactory.createMutator(ks, SS);
        for (int i = 0; i < 30; i++) {
            String k = String.format("u%02d", i);
            m.addInsertion(k, cf, HFactory.createStringColumn("state", STATES[i % 3]));
            m.addInsertion(k, cf, HFactory.createColumn("age", (long) i, SS, LS));
            m.addInsertion(k, cf, HFactory.createStringColumn("name", "user " + i));
        }
        m.execute();
    }

    /** An index query of cf; its expressions' values are raw bytes (s, l), as the columns' types differ. */
    IndexedSlicesQuery<String, String, ByteBuffer> usersQuery(String cf) {
        return HFactory.createIndexedSlicesQuery(ks, SS, SS, ByteBufferSerializer.get()).setColumnFamily(cf)
                .setRange(null, null, false, 10).setRowCount(100);
    }

    static ByteBuffer s(String v) {
        return SS.toByteBuffer(v);
    }

    static ByteBuffer l(long v) {
        return LS.toByteBuffer(v);
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

    static <V> List<String> keysOf(OrderedRows<String, String, V> rows) {
        List<String> out = new ArrayList<>();
        for (Row<String, String, V> r : rows) {
            out.add(r.getKey());
        }
        return out;
    }

    static ColumnDefinition column(String name, ComparatorType type) {
        BasicColumnDefinition d = new BasicColumnDefinition();
        d.setName(SS.toByteBuffer(name));
        d.setValidationClass(type.getClassName());
        return d;
    }

    static Set<String> names(List<KeyspaceDefinition> defs) {
        Set<String> out = new HashSet<>();
        for (KeyspaceDefinition d : defs) {
            out.add(d.getName());
        }
        return out;
    }

    static Set<String> names(KeyspaceDefinition def) {
        Set<String> out = new HashSet<>();
        for (ColumnFamilyDefinition cf : def.getCfDefs()) {
            out.add(cf.getName());
        }
        return out;
    }

    static List<String> colNames(ColumnSlice<String, String> slice) {
        List<String> out = new ArrayList<>();
        for (HColumn<String, String> col : slice.getColumns()) {
            out.add(col.getName());
        }
        return out;
    }

    static List<String> keyList(OrderedRows<String, String, String> rows) {
        List<String> out = new ArrayList<>();
        for (Row<String, String, String> r : rows) {
            out.add(r.getKey());
        }
        return out;
    }

    List<String> slice(String key, String start, String finish, boolean reversed, int count) {
        return slice("Standard", key, start, finish, reversed, count);
    }

    List<String> slice(String cf, String key, String start, String finish, boolean reversed, int count) {
        return colNames(HFactory.createSliceQuery(ks, SS, SS, SS).setColumnFamily(cf).setKey(key)
                .setRange(start, finish, reversed, count).execute().get());
    }

    <N> List<N> typedSlice(String cf, String key, Serializer<N> ns, N start, N finish, boolean reversed, int count) {
        List<N> out = new ArrayList<>();
        for (HColumn<N, String> col : HFactory.createSliceQuery(ks, SS, ns, SS).setColumnFamily(cf).setKey(key)
                .setRange(start, finish, reversed, count).execute().get().getColumns()) {
            out.add(col.getName());
        }
        return out;
    }

    int count(String cf, String key) {
        return HFactory.createCountQuery(ks, SS, SS).setColumnFamily(cf).setKey(key).setRange(null, null, 10000)
                .execute().get();
    }

    static Composite composite(String s, long l) {
        Composite c = new Composite();
        c.addComponent(s, SS);
        c.addComponent(l, LS);
        return c;
    }

    static Composite prefix(String s, ComponentEquality eq) {
        Composite c = new Composite();
        c.addComponent(0, s, eq);
        return c;
    }

    static Composite bound(String s, long l, ComponentEquality eq) {
        Composite c = new Composite();
        c.addComponent(0, s, ComponentEquality.EQUAL);
        c.addComponent(1, l, eq);
        return c;
    }

    List<String> compSlice(Composite start, Composite finish, boolean reversed, int count) {
        List<String> out = new ArrayList<>();
        for (HColumn<Composite, String> col : HFactory.createSliceQuery(ks, SS, CompositeSerializer.get(), SS)
                .setColumnFamily("Composite").setKey("comp").setRange(start, finish, reversed, count).execute().get()
                .getColumns()) {
            out.add(col.getValue());
        }
        return out;
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
