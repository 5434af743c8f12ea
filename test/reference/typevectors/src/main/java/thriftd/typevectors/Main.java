package thriftd.typevectors;

import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.TypeParser;

/**
 * Prints, as JSON, what the real Cassandra's types do: TypeParser.parse's
 * result (the type's toString) or error message for a list of type names,
 * and for generated values of every type the validate outcome and message
 * and getString, and the compare result of every pair of values that
 * validate. thriftd's
 * marshal checks its types against this file
 * (marshal/testdata/types-1.2.19.json).
 *
 * The values are generated from a fixed seed, so a run is reproducible.
 */
public final class Main
{
    private static final Random rng = new Random(20260425L);

    /** Type names whose parse result is recorded. */
    private static final String[] PARSE = {
        "UTF8Type", "org.apache.cassandra.db.marshal.LongType", "", "  \t", "(UTF8Type)", " UTF8Type garbage",
        "Foo", "utf8type", "com.example.Foo", "Foo(reversed=true)", "AbstractType", "TypeParser",
        "UTF8Type(reversed=true)", "UTF8Type(reversed)", "UTF8Type( reversed = true )", "UTF8Type(reversed=false)",
        "UTF8Type(reversed=TRUE)", "UTF8Type(foo=bar, reversed=true)", "UTF8Type ()", "UTF8Type(",
        "UTF8Type(reversed=true", "UTF8Type(reversed!)", "UTF8Type(,reversed=true)", "UTF8Type(,,reversed=true)",
        "ReversedType(LongType)", "ReversedType", "ReversedType()", "ReversedType(LongType,UTF8Type)",
        "ReversedType(CompositeType(Foo))", "ReversedType(ReversedType(LongType))",
        "CompositeType(UTF8Type,LongType)", "CompositeType( UTF8Type , LongType )", "CompositeType(UTF8Type LongType)",
        "CompositeType(UTF8Type(reversed=true), LongType(reversed=false))", "CompositeType", "CompositeType()",
        "CompositeType(UTF8Type, Foo)", "CompositeType(UTF8Type", "CompositeType(UTF8Type,,LongType)",
        "CompositeType(UTF8Type,)", "CompositeType(,UTF8Type)", "CompositeType (UTF8Type)",
        "org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)",
        "CompositeType(IntegerType,ReversedType(LongType),DecimalType)",
        "DynamicCompositeType(s=>UTF8Type,b=>BytesType)", "DynamicCompositeType(a=>AsciiType,q=>UTF8Type,A=>LongType)",
        "DynamicCompositeType(s=>UTF8Type,l=>LongType,r=>ReversedType(LongType),b=>BytesType)",
        "DynamicCompositeType(a=>BytesType,b=>AsciiType,c=>UTF8Type,d=>LongType,e=>Int32Type,f=>IntegerType,"
            + "g=>DecimalType,h=>BooleanType,i=>DateType,j=>DoubleType,k=>FloatType,l=>UUIDType,m=>TimeUUIDType,"
            + "n=>LexicalUUIDType,A=>InetAddressType,B=>CounterColumnType)",
        "DynamicCompositeType", "DynamicCompositeType()", "DynamicCompositeType(ab=>UTF8Type)",
        "DynamicCompositeType(a=UTF8Type)", "DynamicCompositeType(a=>", "DynamicCompositeType( s => UTF8Type )",
        "DynamicCompositeType(s=>UTF8Type,s=>LongType)",
        "BytesType", "AsciiType", "Int32Type", "IntegerType", "DecimalType", "BooleanType", "DateType",
        "DoubleType", "FloatType", "InetAddressType", "UUIDType", "LexicalUUIDType", "TimeUUIDType",
        "CounterColumnType", "EmptyType", "LongType(reversed=true)",
    };

    /** Type names recorded from 2.1.21: those 1.2 lacks. */
    private static final String[] PARSE21 = {
        "TimestampType", "TimestampType(reversed=true)", "ReversedType(TimestampType)",
    };

    private Main() {}

    public static void main(String[] args) throws Exception
    {
        // args[1] is the Cassandra version the class path holds: 1.2.19 for
        // every type, 2.1.21 for the one 1.2 lacks (TimestampType).
        String version = args.length > 1 ? args[1] : "1.2.19";
        boolean v21 = version.startsWith("2.1");
        String[] parse = v21 ? PARSE21 : PARSE;
        StringBuilder out = new StringBuilder();
        out.append("{\n\"cassandra\": ").append(str(version)).append(",\n\"parse\": [\n");
        for (int i = 0; i < parse.length; i++)
        {
            out.append(i == 0 ? "" : ",\n").append("{\"in\": ").append(str(parse[i]));
            try
            {
                AbstractType<?> t = TypeParser.parse(parse[i]);
                out.append(", \"name\": ").append(str(t.toString()));
            }
            catch (Exception e)
            {
                out.append(", \"error\": ").append(str(e.getMessage()));
            }
            out.append("}");
        }
        out.append("\n],\n\"types\": [\n");
        boolean first = true;
        for (Object[] tc : v21 ? cases21() : cases())
        {
            out.append(first ? "" : ",\n");
            first = false;
            typeVectors(out, (String) tc[0], (List<byte[]>) tc[1]);
        }
        out.append("\n]\n}\n");
        try (Writer w = new OutputStreamWriter(new FileOutputStream(args[0]), StandardCharsets.UTF_8))
        {
            w.write(out.toString());
        }
    }

    private static void typeVectors(StringBuilder out, String typeName, List<byte[]> values) throws Exception
    {
        AbstractType<?> type = TypeParser.parse(typeName);
        values.add(0, new byte[0]);
        int n = values.size();
        String[] why = new String[n];
        boolean[] valid = new boolean[n];
        out.append("{\"type\": ").append(str(typeName)).append(", \"name\": ").append(str(type.toString()));
        out.append(",\n \"values\": [");
        for (int i = 0; i < n; i++)
        {
            out.append(i == 0 ? "" : ", ").append('"').append(hex(values.get(i))).append('"');
            try
            {
                type.validate(ByteBuffer.wrap(values.get(i)));
                valid[i] = true;
            }
            catch (Exception e)
            {
                why[i] = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
            }
        }
        out.append("],\n \"validate\": [");
        for (int i = 0; i < n; i++)
            out.append(i == 0 ? "" : ", ").append(valid[i] ? "null" : str(why[i]));
        // getString of each valid value; null where it throws.
        out.append("],\n \"strings\": [");
        for (int i = 0; i < n; i++)
        {
            String s = null;
            if (valid[i])
            {
                try
                {
                    s = type.getString(ByteBuffer.wrap(values.get(i)));
                }
                catch (RuntimeException e)
                {
                    s = null;
                }
            }
            out.append(i == 0 ? "" : ", ").append(s == null ? "null" : str(s));
        }
        // compare[i][j]: the sign of compare(values[i], values[j]) when both
        // validate; 9 when either does not, or compare throws.
        out.append("],\n \"compare\": [");
        for (int i = 0; i < n; i++)
        {
            out.append(i == 0 ? "\n  \"" : ",\n  \"");
            for (int j = 0; j < n; j++)
            {
                char c = '9';
                if (valid[i] && valid[j])
                {
                    try
                    {
                        int r = type.compare(ByteBuffer.wrap(values.get(i)), ByteBuffer.wrap(values.get(j)));
                        c = r < 0 ? '<' : r > 0 ? '>' : '=';
                    }
                    catch (RuntimeException e)
                    {
                        c = '9';
                    }
                }
                out.append(c);
            }
            out.append('"');
        }
        out.append("]}");
    }

    private static List<Object[]> cases()
    {
        List<Object[]> l = new ArrayList<>();
        List<byte[]> utf = utf8();
        List<byte[]> longs = longs(8);
        l.add(new Object[]{ "BytesType", randomBytes(40, 10) });
        l.add(new Object[]{ "AsciiType", ascii() });
        l.add(new Object[]{ "UTF8Type", utf });
        l.add(new Object[]{ "LongType", withBadLengths(longs(8)) });
        l.add(new Object[]{ "Int32Type", withBadLengths(longs(4)) });
        l.add(new Object[]{ "DateType", withBadLengths(longs(8)) });
        l.add(new Object[]{ "CounterColumnType", withBadLengths(longs(8)) });
        l.add(new Object[]{ "IntegerType", varints() });
        l.add(new Object[]{ "DecimalType", decimals() });
        l.add(new Object[]{ "BooleanType", booleans() });
        l.add(new Object[]{ "DoubleType", withBadLengths(doubles()) });
        l.add(new Object[]{ "FloatType", withBadLengths(floats()) });
        l.add(new Object[]{ "InetAddressType", inets() });
        l.add(new Object[]{ "UUIDType", withBadLengths(uuids()) });
        l.add(new Object[]{ "LexicalUUIDType", withBadLengths(uuids()) });
        l.add(new Object[]{ "TimeUUIDType", withBadLengths(uuids()) });
        l.add(new Object[]{ "EmptyType", randomBytes(3, 3) });
        l.add(new Object[]{ "ReversedType(LongType)", withBadLengths(longs(8)) });
        l.add(new Object[]{ "UTF8Type(reversed=true)", utf8() });
        l.add(new Object[]{ "ReversedType(DecimalType)", decimals() });
        l.add(new Object[]{ "ReversedType(IntegerType)", varints() });
        l.add(new Object[]{ "CompositeType(UTF8Type,LongType)", composites(new List[]{ pick(utf, 8), pick(longs, 8) }) });
        l.add(new Object[]{ "CompositeType(IntegerType,ReversedType(LongType),DecimalType)",
                            composites(new List[]{ pick(varints(), 8), pick(longs, 6), pick(decimals(), 8) }) });
        l.add(new Object[]{ "CompositeType(BooleanType,DoubleType)", composites(new List[]{ booleans(), pick(doubles(), 8) }) });
        l.add(new Object[]{ "ReversedType(CompositeType(UTF8Type,LongType))", composites(new List[]{ pick(utf, 6), pick(longs, 6) }) });
        l.add(new Object[]{ "DynamicCompositeType(s=>UTF8Type,l=>LongType,r=>ReversedType(LongType),b=>BytesType)", dynamics() });
        return l;
    }

    private static List<Object[]> cases21()
    {
        List<Object[]> l = new ArrayList<>();
        l.add(new Object[]{ "TimestampType", withBadLengths(longs(8)) });
        // Not ReversedType(TimestampType): 2.1's ReversedType sorts the empty
        // name last, and thriftd's is 1.2's, which sorts it first.
        return l;
    }

    // ---- value generators ----

    private static List<byte[]> randomBytes(int count, int maxLen)
    {
        List<byte[]> l = new ArrayList<>();
        l.add(new byte[]{ 0 });
        l.add(new byte[]{ (byte) 0xFF });
        l.add(new byte[]{ 0, 0 });
        l.add(new byte[]{ (byte) 0x80 });
        for (int i = 0; i < count; i++)
        {
            byte[] b = new byte[rng.nextInt(maxLen + 1)];
            rng.nextBytes(b);
            l.add(b);
        }
        return l;
    }

    private static List<byte[]> ascii()
    {
        List<byte[]> l = new ArrayList<>();
        for (byte[] b : randomBytes(30, 6))
        {
            if (rng.nextInt(3) != 0)
                for (int i = 0; i < b.length; i++)
                    b[i] &= 0x7F;
            l.add(b);
        }
        return l;
    }

    private static List<byte[]> utf8()
    {
        List<byte[]> l = new ArrayList<>();
        String[] s = { "a", "ab", "b", "z", "\u00e9", "\u07ff", "\u0800", "\uffff", "\ue000", "\ud83d\ude00", "a\u0000" };
        for (String x : s)
            l.add(x.getBytes(StandardCharsets.UTF_8));
        int[][] raw = {
            { 0xC3, 0x28 }, { 0xC0, 0x80 }, { 0xC0, 0x41 }, { 0xC1, 0xBF }, { 0xED, 0xA0, 0x80 }, { 0xE0, 0x80, 0x80 },
            { 0xE0, 0x41, 0x80 }, { 0xE0, 0xA0, 0x80 }, { 0xF0, 0x80, 0x80, 0x80 }, { 0xF0, 0x10, 0x80, 0x80 },
            { 0xF0, 0x90, 0x80, 0x80 }, { 0xF4, 0x90, 0x80, 0x80 }, { 0xF5, 0x80, 0x80, 0x80 }, { 0xF8, 0x80, 0x80, 0x80, 0x80 },
            { 0xE2, 0x82 }, { 0x80 }, { 0xFF }, { 0x61, 0xFF },
        };
        for (int[] r : raw)
        {
            byte[] b = new byte[r.length];
            for (int i = 0; i < r.length; i++)
                b[i] = (byte) r[i];
            l.add(b);
        }
        for (int i = 0; i < 20; i++)
        {
            StringBuilder sb = new StringBuilder();
            int len = rng.nextInt(5);
            for (int j = 0; j < len; j++)
            {
                int cp = rng.nextInt(3) == 0 ? 0x20 + rng.nextInt(0x5F) : rng.nextInt(0x110000);
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    cp = 'x';
                sb.appendCodePoint(cp);
            }
            l.add(sb.toString().getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }

    private static List<byte[]> longs(int width)
    {
        List<byte[]> l = new ArrayList<>();
        long[] special = { Long.MIN_VALUE, Long.MIN_VALUE + 1, -256, -255, -1, 0, 1, 255, 256, Long.MAX_VALUE, -86400000L * 365 * 30 };
        for (long v : special)
            l.add(fixed(v, width));
        for (int i = 0; i < 25; i++)
            l.add(fixed(rng.nextLong() >> rng.nextInt(64), width));
        return l;
    }

    private static byte[] fixed(long v, int width)
    {
        byte[] b = ByteBuffer.allocate(8).putLong(v).array();
        return Arrays.copyOfRange(b, 8 - width, 8);
    }

    private static List<byte[]> withBadLengths(List<byte[]> l)
    {
        l.add(new byte[]{ 1 });
        l.add(new byte[]{ 1, 2, 3 });
        l.add(new byte[17]);
        return l;
    }

    private static List<byte[]> varints()
    {
        List<byte[]> l = new ArrayList<>();
        int[][] raw = { { 0 }, { 0, 0 }, { 0xFF }, { 0xFF, 0xFF }, { 0x7F }, { 0, 0x80 }, { 0x80 }, { 0xFF, 0x7F }, { 0xFF, 0x80 },
                        { 0, 0, 5 }, { 5 }, { 1, 0 }, { 0xFF, 0xFF, 0x80 } };
        for (int[] r : raw)
        {
            byte[] b = new byte[r.length];
            for (int i = 0; i < r.length; i++)
                b[i] = (byte) r[i];
            l.add(b);
        }
        for (int i = 0; i < 25; i++)
        {
            byte[] b = new byte[1 + rng.nextInt(9)];
            rng.nextBytes(b);
            if (rng.nextInt(4) == 0)
                b[0] = (byte) (rng.nextBoolean() ? 0 : 0xFF);
            l.add(b);
        }
        return l;
    }

    private static byte[] decimal(int scale, BigInteger unscaled)
    {
        byte[] u = unscaled.toByteArray();
        if (rng.nextInt(5) == 0)
        {
            // a redundant sign byte
            byte[] w = new byte[u.length + 1];
            w[0] = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
            System.arraycopy(u, 0, w, 1, u.length);
            u = w;
        }
        return ByteBuffer.allocate(4 + u.length).putInt(scale).put(u).array();
    }

    private static List<byte[]> decimals()
    {
        List<byte[]> l = new ArrayList<>();
        l.add(decimal(0, BigInteger.ZERO));
        l.add(decimal(5, BigInteger.ZERO));
        l.add(decimal(1, BigInteger.TEN));
        l.add(decimal(0, BigInteger.ONE));
        l.add(decimal(2, BigInteger.valueOf(100)));
        l.add(decimal(0, BigInteger.valueOf(-1)));
        l.add(decimal(1, BigInteger.valueOf(-10)));
        l.add(decimal(-3, BigInteger.valueOf(7)));
        l.add(decimal(Integer.MAX_VALUE, BigInteger.ONE));
        l.add(decimal(Integer.MIN_VALUE, BigInteger.valueOf(-1)));
        l.add(new byte[]{ 1 });
        l.add(new byte[]{ 0, 0, 0, 1 });
        for (int i = 0; i < 25; i++)
        {
            BigInteger u = BigInteger.valueOf(rng.nextInt(2000) - 1000);
            if (rng.nextInt(4) == 0)
                u = u.multiply(BigInteger.TEN.pow(rng.nextInt(30)));
            l.add(decimal(rng.nextInt(20) - 5, u));
        }
        return l;
    }

    private static List<byte[]> booleans()
    {
        List<byte[]> l = new ArrayList<>();
        for (int b : new int[]{ 0, 1, 0x7F, 0x80, 0xFF, 2 })
            l.add(new byte[]{ (byte) b });
        l.add(new byte[]{ 0, 1 });
        return l;
    }

    private static List<byte[]> doubles()
    {
        List<byte[]> l = new ArrayList<>();
        double[] special = { 0.0, -0.0, 1, -1, 1.5, -1.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
                             Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE };
        for (double d : special)
            l.add(ByteBuffer.allocate(8).putDouble(d).array());
        l.add(ByteBuffer.allocate(8).putLong(0x7FF0000000000001L).array());
        l.add(ByteBuffer.allocate(8).putLong(0xFFF8000000000000L).array());
        for (int i = 0; i < 20; i++)
            l.add(ByteBuffer.allocate(8).putLong(rng.nextLong()).array());
        return l;
    }

    private static List<byte[]> floats()
    {
        List<byte[]> l = new ArrayList<>();
        float[] special = { 0.0f, -0.0f, 1, -1, 2.5f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN };
        for (float f : special)
            l.add(ByteBuffer.allocate(4).putFloat(f).array());
        l.add(ByteBuffer.allocate(4).putInt(0x7F800001).array());
        l.add(ByteBuffer.allocate(4).putInt(0xFFC00000).array());
        for (int i = 0; i < 20; i++)
            l.add(ByteBuffer.allocate(4).putInt(rng.nextInt()).array());
        return l;
    }

    private static List<byte[]> inets()
    {
        List<byte[]> l = new ArrayList<>();
        l.add(new byte[]{ 127, 0, 0, 1 });
        l.add(new byte[4]);
        l.add(new byte[16]);
        l.add(new byte[]{ 1, 2, 3 });
        l.add(new byte[]{ 1, 2, 3, 4, 5 });
        for (int i = 0; i < 20; i++)
        {
            byte[] b = new byte[rng.nextBoolean() ? 4 : 16];
            rng.nextBytes(b);
            l.add(b);
        }
        return l;
    }

    private static byte[] v1(long ts, byte[] tail)
    {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.putInt((int) ts);
        b.putShort((short) (ts >>> 32));
        b.putShort((short) ((ts >>> 48) & 0x0FFF | 0x1000));
        b.put(tail, 0, 8);
        return b.array();
    }

    private static List<byte[]> uuids()
    {
        List<byte[]> l = new ArrayList<>();
        byte[] tail = new byte[8];
        long[] times = { 0, 1, 0xFFFFFFFFL, 0x100000000L, 0x0FFFFFFFFFFFFFFFL, 0x123456789ABCDEFL };
        for (long t : times)
        {
            rng.nextBytes(tail);
            l.add(v1(t, tail));
        }
        // Same time, the tail decides (signed or not).
        l.add(v1(42, new byte[]{ 0, 0, 0, 0, 0, 0, 0, 0 }));
        l.add(v1(42, new byte[]{ (byte) 0x80, 0, 0, 0, 0, 0, 0, 0 }));
        l.add(v1(42, new byte[]{ 0x7F, 0, 0, 0, 0, 0, 0, 0 }));
        for (int i = 0; i < 12; i++)
        {
            rng.nextBytes(tail);
            l.add(v1(rng.nextLong() >>> (4 + rng.nextInt(60)), tail));
        }
        for (int i = 0; i < 14; i++)
        {
            byte[] u = new byte[16];
            rng.nextBytes(u);
            if (rng.nextBoolean())
                u[6] = (byte) (u[6] & 0x0F | 0x40);
            l.add(u);
        }
        l.add(new byte[16]);
        byte[] ff = new byte[16];
        Arrays.fill(ff, (byte) 0xFF);
        l.add(ff);
        return l;
    }

    private static List<byte[]> pick(List<byte[]> from, int n)
    {
        List<byte[]> l = new ArrayList<>();
        l.add(new byte[0]);
        for (int i = 0; i < n; i++)
            l.add(from.get(rng.nextInt(from.size())));
        return l;
    }

    private static byte[] component(byte[] value, int eoc)
    {
        return ByteBuffer.allocate(2 + value.length + 1).putShort((short) value.length).put(value).put((byte) eoc).array();
    }

    private static byte[] concat(List<byte[]> parts)
    {
        int n = 0;
        for (byte[] p : parts)
            n += p.length;
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts)
            b.put(p);
        return b.array();
    }

    private static List<byte[]> composites(List<byte[]>[] gens)
    {
        List<byte[]> l = new ArrayList<>();
        int[] eocs = { 0, 0, 0, -1, 1, 2, -128 };
        for (int i = 0; i < 45; i++)
        {
            int n = 1 + rng.nextInt(gens.length);
            List<byte[]> parts = new ArrayList<>();
            for (int c = 0; c < n; c++)
            {
                List<byte[]> g = gens[c];
                parts.add(component(g.get(rng.nextInt(g.size())), c == n - 1 ? eocs[rng.nextInt(eocs.length)] : 0));
            }
            l.add(concat(parts));
        }
        // Malformed names, for validate.
        l.add(new byte[]{ 0 });
        l.add(new byte[]{ 0, 5, 'a' });
        l.add(new byte[]{ 0, 1, 'a' });
        l.add(concat(Arrays.asList(component(new byte[]{ 'a' }, 1), component(new byte[0], 0))));
        List<byte[]> many = new ArrayList<>();
        for (int c = 0; c <= gens.length; c++)
            many.add(component(new byte[0], 0));
        l.add(concat(many));
        l.add(component(new byte[]{ (byte) 0xFF }, 0));
        return l;
    }

    private static byte[] dcComponent(int alias, String type, byte[] value, int eoc)
    {
        byte[] header;
        if (alias != 0)
            header = ByteBuffer.allocate(2).putShort((short) (0x8000 | alias)).array();
        else
        {
            byte[] t = type.getBytes(StandardCharsets.UTF_8);
            header = ByteBuffer.allocate(2 + t.length).putShort((short) t.length).put(t).array();
        }
        return concat(Arrays.asList(header, component(value, eoc)));
    }

    private static List<byte[]> dynamics()
    {
        List<byte[]> utf = pick(utf8(), 8);
        List<byte[]> longs = pick(longs(8), 8);
        List<byte[]> ints = pick(varints(), 5);
        Object[][] kinds = {
            { (int) 's', "", utf }, { 0, "UTF8Type", utf }, { 0, "org.apache.cassandra.db.marshal.UTF8Type", utf },
            { (int) 'l', "", longs }, { 0, "LongType", longs }, { (int) 'r', "", longs }, { 0, "ReversedType(LongType)", longs },
            { (int) 'b', "", utf }, { 0, "BytesType", utf }, { 0, "IntegerType", ints }, { 0, "", utf },
        };
        int[] eocs = { 0, 0, -1, 1 };
        List<byte[]> l = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            int n = 1 + rng.nextInt(3);
            List<byte[]> parts = new ArrayList<>();
            for (int c = 0; c < n; c++)
            {
                Object[] k = kinds[rng.nextInt(kinds.length)];
                if (c > 0 && rng.nextBoolean())
                    k = kinds[0];
                List<byte[]> vals = (List<byte[]>) k[2];
                parts.add(dcComponent((Integer) k[0], (String) k[1], vals.get(rng.nextInt(vals.size())), c == n - 1 ? eocs[rng.nextInt(eocs.length)] : 0));
            }
            l.add(concat(parts));
        }
        l.add(dcComponent('t', "", new byte[]{ 'x' }, 0));
        l.add(dcComponent(0, "Foo", new byte[]{ 'x' }, 0));
        l.add(new byte[]{ (byte) 0x80 });
        l.add(new byte[]{ 0, 9, 'L' });
        l.add(dcComponent(0, "LongType", new byte[]{ 1 }, 0));
        return l;
    }

    // ---- output ----

    private static String hex(byte[] b)
    {
        StringBuilder sb = new StringBuilder();
        for (byte x : b)
            sb.append(String.format("%02x", x & 0xFF));
        return sb.toString();
    }

    private static String str(String s)
    {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray())
        {
            if (c == '"' || c == '\\')
                sb.append('\\').append(c);
            else if (c < 0x20 || c > 0x7E)
                sb.append(String.format("\\u%04x", (int) c));
            else
                sb.append(c);
        }
        return sb.append('"').toString();
    }
}
