require_relative "helper"

# The gem-style client in clients/ruby/lib against a real thriftd.
class TestClient < ThriftdTest
  def setup
    super
    @node = start_node
    @db = cassandra(@node)
  end

  def long(n)
    Cassandra::Long.new(n)
  end

  def test_insert_and_get_standard
    ts = @db.insert(:Standard1, "jsmith", "first" => "John", "last" => "Smith", "age" => 42)
    assert_in_delta Cassandra.timestamp, ts, 60_000_000 # microseconds
    assert_equal({ "age" => "42", "first" => "John", "last" => "Smith" }, @db.get(:Standard1, "jsmith"))
    assert_equal %w[age first last], @db.get(:Standard1, "jsmith").keys
    assert_equal "John", @db.get(:Standard1, "jsmith", "first")
    assert_nil @db.get(:Standard1, "jsmith", "middle")
    assert_equal({}, @db.get(:Standard1, "nobody"))
    assert_nil @db.get(:Standard1, "nobody", "first")
    raw = raw(@node).get("Keyspace1", "jsmith", CassandraThrift::ColumnPath.new(column_family: "Standard1", column: "first"), ONE)
    assert_equal ts, raw.column.timestamp
  end

  def test_slice_options
    @db.insert(:Standard1, "k", ("a".."j").to_h { |c| [c, c.upcase] })
    assert_equal %w[c d e], @db.get(:Standard1, "k", start: "c", finish: "e").keys
    assert_equal %w[j i h], @db.get(:Standard1, "k", reversed: true, count: 3).keys
    assert_equal %w[e d c], @db.get(:Standard1, "k", start: "e", finish: "c", reversed: true).keys
    assert_equal %w[h i j], @db.get(:Standard1, "k", start: "h").keys
    assert_equal %w[a b], @db.get(:Standard1, "k", count: 2).keys
    assert_equal({ "b" => "B", "d" => "D" }, @db.get(:Standard1, "k", columns: %w[d b zz]))
    assert_equal ["D", nil, "B"], @db.get_columns(:Standard1, "k", %w[d zz b])
  end

  def test_explicit_timestamp_and_reconciliation
    @db.insert(:Standard1, "k", { "a" => "new" }, timestamp: 10)
    @db.insert(:Standard1, "k", { "a" => "old" }, timestamp: 9)
    assert_equal "new", @db.get(:Standard1, "k", "a")
    @db.remove(:Standard1, "k", "a", timestamp: 10)
    assert_nil @db.get(:Standard1, "k", "a")
    @db.insert(:Standard1, "k", { "a" => "back" }, timestamp: 11)
    assert_equal "back", @db.get(:Standard1, "k", "a")
  end

  def test_super_columns_as_nested_hashes
    @db.insert(:Super1, "k", "sc2" => { 2 => "b", 1 => "a" }, "sc1" => { long(-10) => "x" })
    assert_equal({ "sc1" => { long(-10) => "x" }, "sc2" => { long(1) => "a", long(2) => "b" } }, @db.get(:Super1, "k"))
    assert_equal({ long(1) => "a", long(2) => "b" }, @db.get(:Super1, "k", "sc2"))
    assert_equal "b", @db.get(:Super1, "k", "sc2", 2)
    assert_nil @db.get(:Super1, "k", "sc2", 3)
    assert_equal({ long(2) => "b" }, @db.get(:Super1, "k", "sc2", reversed: true, count: 1))
    assert_equal({ long(1) => "a" }, @db.get(:Super1, "k", "sc2", start: 0, finish: 1))
    assert_equal %w[sc2 sc1], @db.get(:Super1, "k", reversed: true).keys
    assert_equal ["a", nil], @db.get_columns(:Super1, "k", "sc2", [1, 3])
    assert_equal 2, @db.count_columns(:Super1, "k")
    assert_equal 2, @db.count_columns(:Super1, "k", "sc2")
    # Inserting into an existing super column merges.
    @db.insert(:Super1, "k", "sc1" => { 5 => "y" })
    assert_equal [long(-10), long(5)], @db.get(:Super1, "k", "sc1").keys
  end

  def test_remove_forms
    @db.insert(:Standard1, "k", "a" => "1", "b" => "2")
    @db.insert(:Super1, "k", "sc1" => { 1 => "a", 2 => "b" }, "sc2" => { 3 => "c" })
    @db.remove(:Standard1, "k", "a")
    assert_equal({ "b" => "2" }, @db.get(:Standard1, "k"))
    @db.remove(:Super1, "k", "sc1", 1)
    assert_equal({ long(2) => "b" }, @db.get(:Super1, "k", "sc1"))
    @db.remove(:Super1, "k", "sc2")
    assert_equal ["sc1"], @db.get(:Super1, "k").keys
    @db.remove(:Super1, "k")
    @db.remove(:Standard1, "k")
    assert_equal({}, @db.get(:Super1, "k"))
    assert_equal({}, @db.get(:Standard1, "k"))
    assert_equal 0, @db.count_columns(:Standard1, "k")
  end

  def test_multi_get_keeps_the_order_of_keys
    %w[a b c].each { |k| @db.insert(:Standard1, k, "name" => k) }
    got = @db.multi_get(:Standard1, %w[c missing a])
    assert_equal %w[c missing a], got.keys
    assert_equal({ "c" => { "name" => "c" }, "missing" => {}, "a" => { "name" => "a" } }, got)
    assert_equal({ "c" => "c", "missing" => nil }, @db.multi_get(:Standard1, %w[c missing], "name"))
    @db.insert(:Super1, "a", "sc" => { 1 => "one" })
    assert_equal({ "a" => { long(1) => "one" }, "b" => {} }, @db.multi_get(:Super1, %w[a b], "sc"))
    assert_equal({ "a" => "one", "b" => nil }, @db.multi_get(:Super1, %w[a b], "sc", 1))
  end

  def test_exists
    @db.insert(:Standard1, "k", "a" => "1")
    @db.insert(:Super1, "k", "sc" => { 1 => "x" })
    assert @db.exists?(:Standard1, "k")
    assert @db.exists?(:Standard1, "k", "a")
    refute @db.exists?(:Standard1, "k", "b")
    refute @db.exists?(:Standard1, "nobody")
    assert @db.exists?(:Super1, "k", "sc")
    assert @db.exists?(:Super1, "k", "sc", 1)
    refute @db.exists?(:Super1, "k", "sc", 2)
    refute @db.exists?(:Super1, "k", "other")
  end

  def test_get_range_pages_without_repeating_keys
    keys = (0...23).map { |i| format("key%02d", i) }
    keys.each { |k| @db.insert(:Standard1, k, "c" => k) }
    [2, 3, 5, 22, 23, 24, 500].each do |size|
      got = @db.get_range(:Standard1, batch_size: size, count: nil)
      assert_equal keys, got.keys, "batch_size #{size}"
      assert(got.all? { |k, cols| cols == { "c" => k } })
    end
    assert_equal keys[5..9], @db.get_range(:Standard1, start: "key05", finish: "key09", batch_size: 2).keys
    assert_equal keys[0, 7], @db.get_range(:Standard1, count: 7, batch_size: 3).keys
    seen = []
    @db.get_range(:Standard1, batch_size: 4, count: nil) { |key, columns| seen << [key, columns["c"]] }
    assert_equal keys.map { |k| [k, k] }, seen
    assert_equal 23, @db.count_range(:Standard1, batch_size: 4)
    assert_raises(ArgumentError) { @db.get_range(:Standard1, batch_size: 1) }
  end

  def test_get_range_skips_ghosts_unless_asked
    10.times { |i| @db.insert(:Standard1, "key#{i}", "c" => "v", "d" => "w") }
    (0...10).step(2) { |i| @db.remove(:Standard1, "key#{i}") }
    @db.insert(:Standard1, "only-d", "d" => "x")
    assert_equal %w[key1 key3 key5 key7 key9 only-d], @db.get_range(:Standard1, batch_size: 2).keys
    assert_equal %w[key1 key3 key5 key7 key9], @db.get_range(:Standard1, columns: ["c"], batch_size: 3).keys
    all = @db.get_range(:Standard1, batch_size: 2, filter_empty: false)
    assert_equal((0...10).map { |i| "key#{i}" } + ["only-d"], all.keys)
    assert_equal({}, all["key0"])
    assert_equal 6, @db.count_range(:Standard1)
    assert_equal %w[key1 key3], @db.get_range(:Standard1, count: 2, batch_size: 2).keys
  end

  def test_get_range_of_a_super_column_family
    %w[a b].each { |k| @db.insert(:Super1, k, "sc" => { 1 => k }) }
    assert_equal({ "a" => { "sc" => { long(1) => "a" } }, "b" => { "sc" => { long(1) => "b" } } },
                 @db.get_range(:Super1))
  end

  def test_batch_sends_once_at_the_end
    other = cassandra(@node, "Keyspace1")
    @db.insert(:Standard1, "gone", "a" => "1")
    @db.batch do
      @db.insert(:Standard1, "k", "a" => "1")
      @db.insert(:Super1, "k", "sc" => { 1 => "one" })
      @db.remove(:Standard1, "gone")
      @db.remove(:Super1, "k", "old")
      assert_equal({}, other.get(:Standard1, "k")) # nothing sent yet
    end
    assert_equal({ "a" => "1" }, other.get(:Standard1, "k"))
    assert_equal({ "sc" => { long(1) => "one" } }, other.get(:Super1, "k"))
    assert_equal({}, other.get(:Standard1, "gone"))
  end

  def test_batch_sends_nothing_when_the_block_raises
    assert_raises(RuntimeError) do
      @db.batch do
        @db.insert(:Standard1, "k", "a" => "1")
        raise "stop"
      end
    end
    assert_equal({}, @db.get(:Standard1, "k"))
    # The client is usable, and out of batch mode, afterwards.
    @db.insert(:Standard1, "k", "a" => "2")
    assert_equal "2", @db.get(:Standard1, "k", "a")
  end

  def test_consistency_per_call
    @db.insert(:Standard1, "k", { "a" => "1" }, consistency: Cassandra::Consistency::ZERO)
    assert_equal "1", @db.get(:Standard1, "k", "a", consistency: Cassandra::Consistency::ALL)
    e = assert_raises(Cassandra::InvalidRequestException) { @db.get(:Standard1, "k", consistency: Cassandra::Consistency::ZERO) }
    assert_equal "Consistency level zero may not be applied to read operations", e.why
    e = assert_raises(Cassandra::InvalidRequestException) { @db.multi_get(:Standard1, ["k"], "a", consistency: Cassandra::Consistency::ANY) }
    assert_equal "Consistency level any may not be applied to read operations", e.why
    assert_raises(Cassandra::InvalidRequestException) { @db.count_columns(:Standard1, "k", consistency: Cassandra::Consistency::ZERO) }
    e = assert_raises(Cassandra::InvalidRequestException) { @db.get_range(:Standard1, consistency: Cassandra::Consistency::ZERO) }
    assert_equal "Consistency level zero may not be applied to read operations", e.why
  end

  def test_framed_connection_and_several_servers
    dead = TCPServer.new("127.0.0.1", 0).then { |s| port = s.addr[1]; s.close; "127.0.0.1:#{port}" }
    db = Cassandra.new("Keyspace1", [dead, @node.addr], framed: true, timeout: 10)
    db.insert(:Standard1, "k", "a" => "framed")
    assert_equal "framed", @db.get(:Standard1, "k", "a")
    db.disconnect!
    assert_raises(Thrift::TransportException) { Cassandra.new("Keyspace1", dead).version }
  end

  def test_describe_helpers
    assert_equal "2.2.0", @db.version
    assert_equal "Test Cluster", @db.cluster_name
    assert_equal "org.apache.cassandra.dht.CollatingOrderPreservingPartitioner", @db.partitioner
    assert_equal %w[Keyspace1 Keyspace2 Keyspace3 Keyspace4 system], @db.keyspaces
    assert_includes @db.column_families, "Super4"
    assert_raises(Cassandra::AccessError) { @db.insert(:Nope, "k", "a" => "b") }
    assert_raises(Cassandra::NotFoundException) { Cassandra.new("Nope", @node.addr).get(:Standard1, "k") }
  end

  def test_clear_column_family
    5.times { |i| @db.insert(:Standard1, "k#{i}", "a" => "b") }
    @db.insert(:Standard2, "k0", "a" => "b")
    @db.clear_column_family!(:Standard1)
    assert_equal 0, @db.count_range(:Standard1)
    assert_equal 1, @db.count_range(:Standard2)
  end

  def test_long_names_sort_negative_first
    [5, -5, 0, -2**63, 2**63 - 1, -1].each { |n| @db.insert(:StandardLong1, "k", n => n.to_s) }
    assert_equal [-2**63, -5, -1, 0, 5, 2**63 - 1], @db.get(:StandardLong1, "k").keys.map(&:to_i)
    assert_equal [-1, 0], @db.get(:StandardLong1, "k", start: -1, finish: 0).keys.map(&:to_i)
    assert_equal "-5", @db.get(:StandardLong1, "k", -5)
    assert_equal "-5", @db.get(:StandardLong1, "k", Cassandra::Long.new(-5))
  end

  def test_time_uuid_names
    db = cassandra(@node, "Keyspace2")
    ids = Array.new(200) { Cassandra::UUID.new }
    ids.shuffle(random: Random.new(3)).each_with_index { |u, i| db.insert(:Super4, "k", "sc" => { u => i.to_s }) }
    assert_equal ids, db.get(:Super4, "k", "sc", count: 1000).keys
    assert_equal ids.last(3).reverse, db.get(:Super4, "k", "sc", reversed: true, count: 3).keys
    assert_equal ids[10..20], db.get(:Super4, "k", "sc", start: ids[10], finish: ids[20].to_guid).keys
  end

  def test_time_bounds_select_time_uuids_by_time
    db = cassandra(start_node(DEFAULT_CONF))
    base = Time.utc(2010, 1, 1)
    10.times { |minute| 3.times { db.insert(:StandardByUUID1, "k", Cassandra::UUID.new(base + minute * 60) => minute.to_s) } }
    got = db.get(:StandardByUUID1, "k", start: base + 120, finish: base + 240, count: 100)
    assert_equal %w[2 2 2 3 3 3 4 4 4], got.values.sort
    got = db.get(:StandardByUUID1, "k", start: base + 240, finish: base + 120, reversed: true, count: 100)
    assert_equal %w[4 4 4 3 3 3 2 2 2], got.values
  end

  def test_utf8_names_are_utf8_strings
    db = cassandra(start_node(DEFAULT_CONF))
    db.insert(:Standard2, "k", "é" => "accent", "a" => "plain", "日本" => "japan")
    got = db.get(:Standard2, "k")
    assert_equal %w[a é 日本], got.keys
    assert(got.keys.all? { |k| k.encoding == Encoding::UTF_8 })
    assert_equal "japan", db.get(:Standard2, "k", "日本")
  end

  def test_login
    config = Thriftd.with_authenticator(@tmp, TEST_CONF)
    node = start_node(config, extra: ["-passwd", PASSWD, "-access", ACCESS])
    db = cassandra(node)
    e = assert_raises(Cassandra::InvalidRequestException) { db.get(:Standard1, "k") }
    assert_equal "Login is required before any other API calls", e.why
    e = assert_raises(Cassandra::AuthenticationException) { db.login!("alice", "nope") }
    assert_equal "Given password in password mode PLAIN could not be validated for user alice", e.why
    db.login!("Grace Hopper", "cobol1959")
    db.insert(:Standard1, "k", "a" => "b")
    assert_equal({ "a" => "b" }, db.get(:Standard1, "k"))
    db.disconnect!
    assert_raises(Cassandra::InvalidRequestException) { db.get(:Standard1, "k") }
  end
end

# Cassandra::Long and Cassandra::UUID, without a server.
class TestNameTypes < Minitest::Test
  def test_long
    [0, 1, -1, 2**63 - 1, -2**63].each do |n|
      l = Cassandra::Long.new(n)
      assert_equal [n].pack("q>"), l.to_s
      assert_equal 8, l.to_s.bytesize
      assert_equal n, l.to_i
      assert_equal l, Cassandra::Long.new(l.to_s)
      assert_equal l.hash, Cassandra::Long.new(n).hash
    end
    assert_operator Cassandra::Long.new(-1), :<, Cassandra::Long.new(0)
    assert_raises(RangeError) { Cassandra::Long.new(2**63) }
    assert_raises(ArgumentError) { Cassandra::Long.new("1234567") }
    assert_in_delta Cassandra.timestamp, Cassandra::Long.new.to_i, 60_000_000
  end

  def test_uuid_from_time
    t = Time.at(Rational(1_262_304_000_25, 100)) # 2010-01-01 00:00:00.25 UTC
    low = Cassandra::UUID.new(t, lowest: true)
    high = Cassandra::UUID.new(t, highest: true)
    rand = Cassandra::UUID.new(t)
    [low, high, rand].each do |u|
      assert_equal 1, u.version
      assert_equal 16, u.to_s.bytesize
      assert_equal t, u.to_time
    end
    assert_operator low, :<, rand
    assert_operator rand, :<, high
    assert_equal low, Cassandra::UUID.new(low.to_guid)
    assert_equal low, Cassandra::UUID.new(low.to_s)
    assert_equal low, Cassandra::UUID.new(low.to_i)
    assert_match(/\A\h{8}-\h{4}-1\h{3}-\h{4}-\h{12}\z/, rand.to_guid)
  end

  def test_uuids_made_now_are_in_time_order
    ids = Array.new(1000) { Cassandra::UUID.new }
    assert_equal ids, ids.sort
    assert_equal ids.size, ids.map(&:ticks).uniq.size
    assert_in_delta Time.now.to_f, ids.first.to_time.to_f, 60
  end

  def test_uuid_order_is_time_then_bytes
    early = Cassandra::UUID.new(["ffffffff00001000", "8000000000000000"].join)  # time 0x00000000ffffffff
    late = Cassandra::UUID.new(["0000000000011000", "0000000000000000"].join)   # time 0x0000000100000000
    assert_operator early.to_s, :>, late.to_s
    assert_operator early, :<, late
  end
end
