package thriftd.hadooptest;

import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.db.Cell;
import org.apache.cassandra.db.marshal.CompositeType;
import org.apache.cassandra.db.marshal.UTF8Type;
import org.apache.cassandra.dht.BigIntegerToken;
import org.apache.cassandra.dht.RandomPartitioner;
import org.apache.cassandra.hadoop.ColumnFamilyInputFormat;
import org.apache.cassandra.hadoop.ColumnFamilyOutputFormat;
import org.apache.cassandra.hadoop.ColumnFamilySplit;
import org.apache.cassandra.hadoop.ConfigHelper;
import org.apache.cassandra.thrift.Cassandra;
import org.apache.cassandra.thrift.CfDef;
import org.apache.cassandra.thrift.Column;
import org.apache.cassandra.thrift.ColumnDef;
import org.apache.cassandra.thrift.ColumnOrSuperColumn;
import org.apache.cassandra.thrift.ColumnParent;
import org.apache.cassandra.thrift.ConsistencyLevel;
import org.apache.cassandra.thrift.CounterColumn;
import org.apache.cassandra.thrift.IndexExpression;
import org.apache.cassandra.thrift.IndexOperator;
import org.apache.cassandra.thrift.IndexType;
import org.apache.cassandra.thrift.KeyRange;
import org.apache.cassandra.thrift.KeySlice;
import org.apache.cassandra.thrift.KsDef;
import org.apache.cassandra.thrift.Mutation;
import org.apache.cassandra.thrift.SlicePredicate;
import org.apache.cassandra.thrift.SliceRange;
import org.apache.cassandra.thrift.SuperColumn;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TFramedTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;

/**
 * Map-only Hadoop 1.0.3 jobs in local mode over Cassandra 2.1.21's own
 * ColumnFamilyInputFormat, ColumnFamilyRecordReader and
 * ColumnFamilyOutputFormat, against one 19.x server (RandomPartitioner,
 * framed): every row and column a job reads is checked against what was
 * written, and the splits the input format makes are checked to cover
 * the ring (or the job's token range) with no gap or overlap.
 *
 * Usage: HadoopJobs HOST:PORT. The last line is "hadoop: N passed, N failed".
 */
public final class HadoopJobs {
    static final int ROWS = 400;        // the Standard family's rows
    // The wide family: enough rows (with 128 rows per index sample) for
    // thriftd to cut the ring into several splits; every 7th row is wide.
    static final int WIDE_ROWS = 900;

    static int wideColumns(int row) { return row % 7 == 0 ? 60 : 4; }
    static final int SUPER_ROWS = 50;
    static final int COUNTER_ROWS = 50;
    static final RandomPartitioner PARTITIONER = new RandomPartitioner();
    static final BigInteger RING = BigInteger.valueOf(2).pow(127);

    /** What each job's mappers saw, by job name (the jobs run at once). */
    static final ConcurrentMap<String, Seen> SEEN = new ConcurrentHashMap<>();

    static final class Seen {
        /** key → column name → value */
        final ConcurrentMap<String, Map<String, String>> rows = new ConcurrentHashMap<>();
        /** Columns read more than once (a split overlap). */
        final AtomicInteger duplicates = new AtomicInteger();
        /** Rows read outside their split's token range. */
        final List<String> outside = Collections.synchronizedList(new ArrayList<>());
    }

    final String host;
    final int port;
    final String keyspace;
    final File tmp;
    int passed, failed;

    HadoopJobs(String host, int port, File tmp) {
        this.host = host;
        this.port = port;
        this.tmp = tmp;
        this.keyspace = "Hadoop_" + Long.toHexString(System.nanoTime() & 0xffffffffL);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !args[0].contains(":")) {
            System.err.println("usage: HadoopJobs HOST:PORT");
            System.exit(2);
        }
        // The input and output formats are clients: no cassandra.yaml.
        Config.setClientMode(true);
        String[] hp = args[0].split(":");
        File tmp = Files.createTempDirectory("thriftd-hadoop").toFile();
        HadoopJobs h = new HadoopJobs(hp[0], Integer.parseInt(hp[1]), tmp);
        try {
            h.run();
        } finally {
            deleteTree(tmp);
        }
        System.out.printf("hadoop: %d passed, %d failed%n", h.passed, h.failed);
        System.exit(h.failed == 0 ? 0 : 1);
    }

    // ---- data ---------------------------------------------------------------

    static String key(int i) { return String.format("row%04d", i); }
    static String wideKey(int i) { return String.format("wide%03d", i); }
    static String state(int i) { return i % 5 == 0 ? "red" : "blue"; }

    static BigInteger token(String key) {
        return ((BigIntegerToken) PARTITIONER.getToken(ByteBufferUtil.bytes(key))).getTokenValue();
    }

    static ByteBuffer b(String s) { return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)); }
    static String s(ByteBuffer b) {
        try {
            return ByteBufferUtil.string(b);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    Cassandra.Client connect() throws Exception {
        TTransport t = new TFramedTransport(new TSocket(host, port));
        t.open();
        return new Cassandra.Client(new TBinaryProtocol(t));
    }

    void load() throws Exception {
        Cassandra.Client c = connect();
        CfDef rows = new CfDef(keyspace, "Rows").setComparator_type("UTF8Type").setKey_validation_class("UTF8Type")
            .setDefault_validation_class("UTF8Type")
            .setColumn_metadata(List.of(new ColumnDef(b("state"), "UTF8Type").setIndex_type(IndexType.KEYS).setIndex_name("Rows_state")));
        CfDef wide = new CfDef(keyspace, "Wide").setComparator_type("UTF8Type").setKey_validation_class("UTF8Type")
            .setDefault_validation_class("UTF8Type");
        CfDef sup = new CfDef(keyspace, "Super").setColumn_type("Super").setComparator_type("UTF8Type")
            .setSubcomparator_type("UTF8Type").setKey_validation_class("UTF8Type").setDefault_validation_class("UTF8Type");
        CfDef counters = new CfDef(keyspace, "Counters").setComparator_type("UTF8Type").setKey_validation_class("UTF8Type")
            .setDefault_validation_class("CounterColumnType");
        CfDef out = new CfDef(keyspace, "Out").setComparator_type("UTF8Type").setKey_validation_class("UTF8Type")
            .setDefault_validation_class("UTF8Type");
        KsDef ks = new KsDef(keyspace, "org.apache.cassandra.locator.SimpleStrategy", List.of(rows, wide, sup, counters, out))
            .setStrategy_options(Map.of("replication_factor", "1"));
        c.system_add_keyspace(ks);
        c.set_keyspace(keyspace);
        long ts = 1000;
        Map<ByteBuffer, Map<String, List<Mutation>>> batch = new HashMap<>();
        for (int i = 0; i < ROWS; i++) {
            List<Mutation> ms = new ArrayList<>();
            ms.add(mutation("name", "name" + i, ts));
            ms.add(mutation("n", Integer.toString(i), ts));
            ms.add(mutation("state", state(i), ts));
            batch.put(b(key(i)), Map.of("Rows", ms));
        }
        for (int i = 0; i < WIDE_ROWS; i++) {
            List<Mutation> ms = new ArrayList<>();
            for (int j = 0; j < wideColumns(i); j++)
                ms.add(mutation(String.format("c%03d", j), i + "." + j, ts));
            batch.put(b(wideKey(i)), Map.of("Wide", ms));
        }
        c.batch_mutate(batch, ConsistencyLevel.ONE);
        batch.clear();
        for (int i = 0; i < SUPER_ROWS; i++) {
            List<Mutation> ms = new ArrayList<>();
            for (int sc = 0; sc < 2; sc++) {
                List<Column> cols = new ArrayList<>();
                for (int j = 0; j < 3; j++)
                    cols.add(new Column(b("sub" + j)).setValue(b(i + "/" + sc + "/" + j)).setTimestamp(ts));
                ms.add(new Mutation().setColumn_or_supercolumn(
                    new ColumnOrSuperColumn().setSuper_column(new SuperColumn(b("sc" + sc), cols))));
            }
            batch.put(b("super" + i), Map.of("Super", ms));
        }
        c.batch_mutate(batch, ConsistencyLevel.ONE);
        for (int i = 0; i < COUNTER_ROWS; i++) {
            ColumnParent p = new ColumnParent("Counters");
            c.add(b("count" + i), p, new CounterColumn(b("hits"), i), ConsistencyLevel.ONE);
            c.add(b("count" + i), p, new CounterColumn(b("hits"), 1000), ConsistencyLevel.ONE);
            c.add(b("count" + i), p, new CounterColumn(b("misses"), -i), ConsistencyLevel.ONE);
        }
        c.getInputProtocol().getTransport().close();
    }

    static Mutation mutation(String name, String value, long ts) {
        return new Mutation().setColumn_or_supercolumn(new ColumnOrSuperColumn()
            .setColumn(new Column(b(name)).setValue(b(value)).setTimestamp(ts)));
    }

    // ---- jobs ---------------------------------------------------------------

    /** Reads every row handed to it into SEEN, checking it against its split. */
    public static class Collect extends Mapper<ByteBuffer, SortedMap<ByteBuffer, Cell>, Object, Object> {
        BigInteger left, right;

        @Override
        protected void setup(Context ctx) {
            ColumnFamilySplit split = (ColumnFamilySplit) ctx.getInputSplit();
            left = new BigInteger(split.getStartToken());
            right = new BigInteger(split.getEndToken());
        }

        @Override
        protected void map(ByteBuffer key, SortedMap<ByteBuffer, Cell> columns, Context ctx) {
            String k = s(key);
            Seen seen = SEEN.get(ctx.getJobName());
            if (!inRange(left, right, token(k)))
                seen.outside.add(k + " outside (" + left + ", " + right + "]");
            Map<String, String> row = seen.rows.computeIfAbsent(k, x -> new ConcurrentHashMap<>());
            for (Map.Entry<ByteBuffer, Cell> e : columns.entrySet()) {
                String name = columnName(e.getKey(), ctx.getConfiguration().get("thriftd.hadoop.super") != null);
                String value = ctx.getConfiguration().get("thriftd.hadoop.counter") != null
                    ? Long.toString(ByteBufferUtil.toLong(e.getValue().value()))
                    : s(e.getValue().value());
                if (row.put(name, value) != null)
                    seen.duplicates.incrementAndGet();
            }
            if (columns.isEmpty() && row.put("", "") != null)
                seen.duplicates.incrementAndGet();
        }
    }

    /** A super family's cells are named CompositeType(super column, subcolumn). */
    static String columnName(ByteBuffer name, boolean isSuper) {
        if (!isSuper)
            return s(name);
        CompositeType ct = CompositeType.getInstance(UTF8Type.instance, UTF8Type.instance);
        ByteBuffer[] parts = ct.split(name);
        return s(parts[0]) + ":" + s(parts[1]);
    }

    /** (left, right] on the ring, wrapping when left >= right. */
    static boolean inRange(BigInteger left, BigInteger right, BigInteger t) {
        if (left.compareTo(right) < 0)
            return t.compareTo(left) > 0 && t.compareTo(right) <= 0;
        return t.compareTo(left) > 0 || t.compareTo(right) <= 0;
    }

    /** Copies each row's "name" into the Out family, with its length. */
    public static class WriteBack extends Mapper<ByteBuffer, SortedMap<ByteBuffer, Cell>, ByteBuffer, List<Mutation>> {
        @Override
        protected void map(ByteBuffer key, SortedMap<ByteBuffer, Cell> columns, Context ctx) throws IOException, InterruptedException {
            Cell name = columns.get(b("name"));
            if (name == null)
                return;
            String v = s(name.value());
            ctx.write(ByteBufferUtil.clone(key), List.of(mutation("copy", v.toUpperCase(), 2000), mutation("len", Integer.toString(v.length()), 2000)));
        }
    }

    Configuration conf(String cf, boolean wide, int splitSize) {
        Configuration conf = new Configuration();
        conf.set("mapred.job.tracker", "local");
        conf.set("fs.default.name", "file:///");
        conf.set("hadoop.tmp.dir", new File(tmp, "hadoop").getPath());
        conf.setInt("jobclient.completion.poll.interval", 100); // not 5 s
        ConfigHelper.setInputInitialAddress(conf, host);
        ConfigHelper.setInputRpcPort(conf, Integer.toString(port));
        ConfigHelper.setInputPartitioner(conf, "org.apache.cassandra.dht.RandomPartitioner");
        ConfigHelper.setInputColumnFamily(conf, keyspace, cf, wide);
        ConfigHelper.setInputSplitSize(conf, splitSize);
        ConfigHelper.setRangeBatchSize(conf, 7); // pages of a few rows or columns: many calls per split
        ConfigHelper.setInputSlicePredicate(conf, new SlicePredicate().setSlice_range(
            new SliceRange(ByteBufferUtil.EMPTY_BYTE_BUFFER, ByteBufferUtil.EMPTY_BYTE_BUFFER, false, 1000)));
        return conf;
    }

    /** Runs a job and returns its splits; SEEN holds what its mappers read. */
    List<ColumnFamilySplit> run(String name, Configuration conf, Class<? extends Mapper> mapper, boolean write) throws Exception {
        SEEN.put(name, new Seen());
        Job job = new Job(conf, name);
        job.setJarByClass(HadoopJobs.class);
        job.setMapperClass(mapper);
        job.setNumReduceTasks(0);
        job.setInputFormatClass(ColumnFamilyInputFormat.class);
        if (write) {
            job.setOutputKeyClass(ByteBuffer.class);
            job.setOutputValueClass(List.class);
            job.setOutputFormatClass(ColumnFamilyOutputFormat.class);
        } else {
            job.setOutputFormatClass(NullOutputFormat.class);
        }
        List<InputSplit> raw = new ColumnFamilyInputFormat().getSplits(job);
        List<ColumnFamilySplit> splits = new ArrayList<>();
        for (InputSplit s : raw)
            splits.add((ColumnFamilySplit) s);
        // Hadoop 1.0.3's local runner numbers jobs without a lock: one
        // submission at a time, then the jobs run at once.
        synchronized (HadoopJobs.class) {
            job.submit();
        }
        if (!job.waitForCompletion(false))
            throw new IllegalStateException("job " + name + " failed");
        return splits;
    }

    // ---- checks -------------------------------------------------------------

    synchronized void check(String name, boolean ok, String detail) {
        if (ok) {
            passed++;
            System.out.println("ok   " + name);
        } else {
            failed++;
            System.out.println("FAIL " + name + ": " + detail);
        }
    }

    interface Body { void run() throws Exception; }

    /**
     * Starts a job's checks beside the others': Hadoop 1.0.3's local runner
     * spends about 3 s on each task's end (Task.PROGRESS_INTERVAL), so the
     * jobs run at once rather than one after another.
     */
    void job(String name, Body body) {
        running.add(pool.submit(() -> {
            long t = System.nanoTime();
            try {
                body.run();
            } catch (Throwable e) {
                synchronized (this) {
                    failed++;
                    System.out.println("FAIL " + name + ": " + e);
                    e.printStackTrace(System.out);
                }
            }
            System.out.printf("     (%s: %d ms)%n", name, (System.nanoTime() - t) / 1_000_000);
        }));
    }

    final ExecutorService pool = Executors.newCachedThreadPool();
    final List<Future<?>> running = new ArrayList<>();

    /**
     * Checks that splits cover (left, right] of the ring exactly once:
     * sorted by start, each starts where the previous ended. left == right
     * is the whole ring.
     */
    String coverage(List<ColumnFamilySplit> splits, BigInteger left, BigInteger right) {
        List<BigInteger[]> rs = new ArrayList<>();
        for (ColumnFamilySplit s : splits)
            rs.add(new BigInteger[]{new BigInteger(s.getStartToken()), new BigInteger(s.getEndToken())});
        // Walk from left: each step must find exactly one split starting
        // where the last one ended.
        BigInteger at = left;
        int used = 0;
        while (used < rs.size()) {
            BigInteger[] next = null;
            for (BigInteger[] r : rs) {
                if (r[0].equals(at)) {
                    if (next != null)
                        return "two splits start at " + at;
                    next = r;
                }
            }
            if (next == null)
                return "a gap after " + at + " (" + used + " of " + rs.size() + " splits walked)";
            if (next[1].equals(at) && rs.size() > 1)
                return "an empty or whole-ring split at " + at + " among others";
            at = next[1];
            used++;
            if (at.equals(right) && used < rs.size() && !left.equals(right))
                return "splits beyond " + right;
        }
        // Unwrapped pieces end at the ring's minimum token (0) and the
        // next starts there, so the walk ends at right.
        if (!at.equals(right))
            return "the splits end at " + at + ", not " + right;
        return null;
    }

    static Map<String, Map<String, String>> expectRows(java.util.function.Predicate<String> keep) {
        Map<String, Map<String, String>> m = new TreeMap<>();
        for (int i = 0; i < ROWS; i++) {
            if (!keep.test(key(i)))
                continue;
            Map<String, String> row = new TreeMap<>();
            row.put("name", "name" + i);
            row.put("n", Integer.toString(i));
            row.put("state", state(i));
            m.put(key(i), row);
        }
        return m;
    }

    void compare(String name, Map<String, Map<String, String>> want) {
        Seen seen = SEEN.get(name);
        Map<String, Map<String, String>> got = new TreeMap<>();
        seen.rows.forEach((k, v) -> got.put(k, new TreeMap<>(v)));
        String detail = "";
        if (!got.equals(want)) {
            TreeSet<String> missing = new TreeSet<>(want.keySet());
            missing.removeAll(got.keySet());
            TreeSet<String> extra = new TreeSet<>(got.keySet());
            extra.removeAll(want.keySet());
            String differ = "";
            for (String k : want.keySet())
                if (got.containsKey(k) && !got.get(k).equals(want.get(k))) {
                    differ = k + ": " + got.get(k) + " want " + want.get(k);
                    break;
                }
            detail = want.size() + " rows expected, " + got.size() + " read; missing " + head(missing) + ", extra "
                + head(extra) + (differ.isEmpty() ? "" : ", first differing " + differ);
        }
        int dup = seen.duplicates.get();
        check(name + ": every row and column read once", got.equals(want) && dup == 0,
            detail + (dup > 0 ? " " + dup + " read twice" : ""));
        check(name + ": every row within its split's range", seen.outside.isEmpty(), head(seen.outside));
    }

    static String head(java.util.Collection<String> c) {
        List<String> l = new ArrayList<>(c);
        return l.size() <= 5 ? l.toString() : l.subList(0, 5) + " and " + (l.size() - 5) + " more";
    }

    void run() throws Exception {
        load();
        BigInteger zero = BigInteger.ZERO;

        job("whole ring, small splits", () -> {
            List<ColumnFamilySplit> splits = run("whole ring", conf("Rows", false, 16), Collect.class, false);
            String gap = coverage(splits, ringStart(splits), ringStart(splits));
            check("whole ring: " + splits.size() + " splits cover the ring once", gap == null, gap + " in " + describe(splits));
            compare("whole ring", expectRows(k -> true));
        });

        job("split size", () -> {
            // The default split size (64 Ki rows) over 400 rows: one split
            // per ring range, plus one where a range wraps past the ring's
            // minimum token.
            Configuration conf = conf("Rows", false, 64 * 1024);
            List<InputSplit> raw = new ColumnFamilyInputFormat().getSplits(new Job(conf, "count"));
            check("split size 65536: at most 2 splits for " + ROWS + " rows", raw.size() <= 2, raw.size() + " splits");
            conf = conf("Rows", false, 100);
            raw = new ColumnFamilyInputFormat().getSplits(new Job(conf, "count"));
            check("split size 100: at most " + (ROWS / 100 + 1) + " splits for " + ROWS + " rows",
                raw.size() <= ROWS / 100 + 1, raw.size() + " splits");
        });

        // A token range in the ring's middle, and one that wraps past its end.
        BigInteger a = RING.divide(BigInteger.valueOf(5)), bnd = RING.multiply(BigInteger.valueOf(3)).divide(BigInteger.valueOf(5));
        for (BigInteger[] r : new BigInteger[][]{{a, bnd}, {bnd, a}}) {
            String label = r[0].compareTo(r[1]) < 0 ? "token range" : "wrapping token range";
            job(label, () -> {
                Configuration conf = conf("Rows", false, 16);
                ConfigHelper.setInputRange(conf, r[0].toString(), r[1].toString());
                List<ColumnFamilySplit> splits = run(label, conf, Collect.class, false);
                String gap = coverage(splits, r[0], r[1]);
                check(label + ": " + splits.size() + " splits cover (" + r[0] + ", " + r[1] + "] once", gap == null, gap + " in " + describe(splits));
                compare(label, expectRows(k -> inRange(r[0], r[1], token(k))));
            });
        }

        job("wide rows", () -> {
            // Pages of 25 columns: some end inside a wide row, others
            // span several narrow ones and a split's end.
            Configuration conf = conf("Wide", true, 128);
            ConfigHelper.setRangeBatchSize(conf, 25);
            List<ColumnFamilySplit> splits = run("wide rows", conf, Collect.class, false);
            String gap = coverage(splits, ringStart(splits), ringStart(splits));
            check("wide rows: " + splits.size() + " splits cover the ring once", gap == null, gap + " in " + describe(splits));
            Map<String, Map<String, String>> want = new TreeMap<>();
            for (int i = 0; i < WIDE_ROWS; i++) {
                Map<String, String> row = new TreeMap<>();
                for (int j = 0; j < wideColumns(i); j++)
                    row.put(String.format("c%03d", j), i + "." + j);
                want.put(wideKey(i), row);
            }
            compare("wide rows", want);
        });

        job("index filter", () -> {
            Configuration conf = conf("Rows", false, 16);
            ConfigHelper.setInputRange(conf, List.of(new IndexExpression(b("state"), IndexOperator.EQ, b("red"))));
            run("index filter", conf, Collect.class, false);
            compare("index filter", expectRows(k -> state(Integer.parseInt(k.substring(3))).equals("red")));
        });

        job("super family", () -> {
            Configuration conf = conf("Super", false, 16);
            conf.set("thriftd.hadoop.super", "1");
            run("super family", conf, Collect.class, false);
            Map<String, Map<String, String>> want = new TreeMap<>();
            for (int i = 0; i < SUPER_ROWS; i++) {
                Map<String, String> row = new TreeMap<>();
                for (int sc = 0; sc < 2; sc++)
                    for (int j = 0; j < 3; j++)
                        row.put("sc" + sc + ":sub" + j, i + "/" + sc + "/" + j);
                want.put("super" + i, row);
            }
            compare("super family", want);
        });

        job("counter family", () -> {
            Configuration conf = conf("Counters", false, 16);
            conf.set("thriftd.hadoop.counter", "1");
            run("counter family", conf, Collect.class, false);
            Map<String, Map<String, String>> want = new TreeMap<>();
            for (int i = 0; i < COUNTER_ROWS; i++)
                want.put("count" + i, new TreeMap<>(Map.of("hits", Integer.toString(i + 1000), "misses", Integer.toString(-i))));
            compare("counter family", want);
        });

        job("write-back", () -> {
            Configuration conf = conf("Rows", false, 64);
            ConfigHelper.setOutputInitialAddress(conf, host);
            ConfigHelper.setOutputRpcPort(conf, Integer.toString(port));
            ConfigHelper.setOutputPartitioner(conf, "org.apache.cassandra.dht.RandomPartitioner");
            ConfigHelper.setOutputColumnFamily(conf, keyspace, "Out");
            run("write-back", conf, WriteBack.class, true);
            Cassandra.Client c = connect();
            c.set_keyspace(keyspace);
            Map<String, Map<String, String>> got = new TreeMap<>();
            List<KeySlice> page = c.get_range_slices(new ColumnParent("Out"),
                new SlicePredicate().setSlice_range(new SliceRange(ByteBufferUtil.EMPTY_BYTE_BUFFER, ByteBufferUtil.EMPTY_BYTE_BUFFER, false, 100)),
                new KeyRange(ROWS + 10).setStart_token("0").setEnd_token("0"), ConsistencyLevel.ONE);
            for (KeySlice ks : page) {
                Map<String, String> row = new TreeMap<>();
                for (ColumnOrSuperColumn co : ks.columns)
                    row.put(s(co.column.name), s(co.column.value));
                got.put(s(ByteBuffer.wrap(ks.getKey())), row);
            }
            c.getInputProtocol().getTransport().close();
            Map<String, Map<String, String>> want = new TreeMap<>();
            for (int i = 0; i < ROWS; i++)
                want.put(key(i), new TreeMap<>(Map.of("copy", ("name" + i).toUpperCase(), "len", Integer.toString(("name" + i).length()))));
            check("write-back: every row written through ColumnFamilyOutputFormat", got.equals(want),
                got.size() + " rows in Out, " + want.size() + " expected");
        });

        for (Future<?> f : running)
            f.get();
        pool.shutdown();
    }

    /** The token the ring's ranges start from: the node's own token. */
    BigInteger ringStart(List<ColumnFamilySplit> splits) throws Exception {
        Cassandra.Client c = connect();
        try {
            return new BigInteger(c.describe_ring(keyspace).get(0).start_token);
        } finally {
            c.getInputProtocol().getTransport().close();
        }
    }

    static String describe(List<ColumnFamilySplit> splits) {
        List<String> l = new ArrayList<>();
        for (ColumnFamilySplit s : splits)
            l.add("(" + s.getStartToken() + ", " + s.getEndToken() + "]");
        Collections.sort(l);
        return l.size() + " splits " + head(l);
    }

    static void deleteTree(File f) {
        File[] kids = f.listFiles();
        if (kids != null)
            for (File k : kids)
                deleteTree(k);
        f.delete();
    }
}
