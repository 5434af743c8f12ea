require_relative "helper"
require "digest"
require "securerandom"

# The generated Ruby bindings (CassandraThrift, ruby-thrift) against a real
# thriftd: every API method through both framings, comparators, super column
# families, validation messages, authentication and restarts.
class TestThriftAPI < ThriftdTest
  include CassandraThrift

  KS = "Keyspace1".freeze
  ALL = SlicePredicate.new(slice_range: SliceRange.new(start: "", finish: "", reversed: false, count: 1000))

  def path(cf, column: nil, super_column: nil)
    ColumnPath.new(column_family: cf, column: column, super_column: super_column)
  end

  def parent(cf, super_column = nil)
    ColumnParent.new(column_family: cf, super_column: super_column)
  end

  def col(name, value, ts = 0)
    Column.new(name: name, value: value, timestamp: ts)
  end

  def names(list)
    list.map { |r| (r.column || r.super_column).name }
  end

  def every_method(c)
    assert_equal "2.2.0", c.describe_version
    assert_equal "Test Cluster", c.describe_cluster_name
    assert_equal "org.apache.cassandra.dht.CollatingOrderPreservingPartitioner", c.describe_partitioner
    assert_equal Set.new(%w[Keyspace1 Keyspace2 Keyspace3 Keyspace4 system]), c.describe_keyspaces
    assert_equal %w[Keyspace1 Keyspace2 Keyspace3 Keyspace4 system], c.get_string_list_property("keyspaces").sort
    assert_equal [], c.get_string_list_property("nothing")
    assert_equal "Test Cluster", c.get_string_property("cluster name")
    assert_equal "2.2.0", c.get_string_property("version")
    assert_equal "?", c.get_string_property("nothing")
    assert_equal File.read(TEST_CONF), c.get_string_property("config file")
    ring = c.describe_ring(KS)
    assert_equal 1, ring.size
    assert_equal ["127.0.0.1"], ring[0].endpoints
    assert_equal ring[0].start_token, ring[0].end_token
    assert_equal({ "Type" => "Super", "CompareWith" => "org.apache.cassandra.db.marshal.BytesType",
                   "CompareSubcolumnsWith" => "org.apache.cassandra.db.marshal.LongType",
                   "Desc" => "Keyspace1.Super1\nColumn Family Type: Super\nColumns Sorted By: org.apache.cassandra.db.marshal.BytesType\n" },
                 c.describe_keyspace(KS)["Super1"])
    assert_raises(NotFoundException) { c.describe_keyspace("Nope") }
    c.login(KS, AuthenticationRequest.new(credentials: { "username" => "anyone", "password" => "-" }))

    c.insert(KS, "k1", path("Standard1", column: "a"), "1", 0, ONE)
    c.batch_insert(KS, "k1", { "Standard1" => [ColumnOrSuperColumn.new(column: col("b", "2"))],
                               "Super1" => [ColumnOrSuperColumn.new(super_column: SuperColumn.new(name: "sc", columns: [col(i64(1), "x")]))] }, ONE)
    c.batch_mutate(KS, { "k2" => { "Standard1" => [Mutation.new(column_or_supercolumn: ColumnOrSuperColumn.new(column: col("c", "3")))] } }, ONE)

    assert_equal col("a", "1"), c.get(KS, "k1", path("Standard1", column: "a"), ONE).column
    assert_equal SuperColumn.new(name: "sc", columns: [col(i64(1), "x")]), c.get(KS, "k1", path("Super1", super_column: "sc"), ONE).super_column
    assert_equal %w[a b], names(c.get_slice(KS, "k1", parent("Standard1"), ALL, ONE))
    got = c.multiget(KS, %w[k1 k2 k3], path("Standard1", column: "c"), ONE)
    assert_equal col("c", "3"), got["k2"].column
    assert_nil got["k1"].column
    assert_equal ColumnOrSuperColumn.new, got["k3"]
    got = c.multiget_slice(KS, %w[k1 k2 k3], parent("Standard1"), ALL, ONE)
    assert_equal({ "k1" => %w[a b], "k2" => %w[c], "k3" => [] }, got.transform_values { |v| names(v) })
    assert_equal 2, c.get_count(KS, "k1", parent("Standard1"), ONE)
    assert_equal 1, c.get_count(KS, "k1", parent("Super1", "sc"), ONE)
    slices = c.get_range_slices(KS, parent("Standard1"), ALL, KeyRange.new(start_key: "", end_key: "", count: 10), ONE)
    assert_equal %w[k1 k2], slices.map(&:key)
    slices = c.get_range_slice(KS, parent("Standard1"), ALL, "k2", "", 10, ONE)
    assert_equal %w[k2], slices.map(&:key)

    c.remove(KS, "k1", path("Standard1", column: "a"), 1, ONE)
    assert_raises(NotFoundException) { c.get(KS, "k1", path("Standard1", column: "a"), ONE) }
    c.remove(KS, "k2", path("Standard1"), 1, ONE)
    slices = c.get_range_slices(KS, parent("Standard1"), ALL, KeyRange.new(start_key: "", end_key: "", count: 10), ONE)
    assert_equal [["k1", 1], ["k2", 0]], slices.map { |s| [s.key, s.columns.size] }

    splits = c.describe_splits(ring[0].start_token, ring[0].end_token, 128)
    assert_equal ring[0].start_token, splits.first
    assert_equal ring[0].end_token, splits.last
  end

  def test_every_method_unframed
    every_method(raw(start_node))
  end

  def test_every_method_framed
    every_method(raw(start_node, framed: true))
  end

  def test_framed_and_unframed_share_a_port
    node = start_node
    a = raw(node)
    b = raw(node, framed: true)
    a.insert(KS, "k", path("Standard1", column: "x"), "from unframed", 0, ONE)
    assert_equal "from unframed", b.get(KS, "k", path("Standard1", column: "x"), ONE).column.value
  end

  def test_super_column_family_scenarios
    c = raw(start_node)
    c.insert(KS, "k", path("Super1", super_column: "sc1", column: i64(4)), "value4", 0, ONE)
    c.insert(KS, "k", path("Super1", super_column: "sc2", column: i64(5)), "value5", 0, ONE)
    c.insert(KS, "k", path("Super1", super_column: "sc2", column: i64(6)), "value6", 0, ONE)
    supers = c.get_slice(KS, "k", parent("Super1"), ALL, ONE).map(&:super_column)
    assert_equal [SuperColumn.new(name: "sc1", columns: [col(i64(4), "value4")]),
                  SuperColumn.new(name: "sc2", columns: [col(i64(5), "value5"), col(i64(6), "value6")])], supers
    # Reversed slices reverse the super columns, not their subcolumns.
    reversed = SlicePredicate.new(slice_range: SliceRange.new(start: "", finish: "", reversed: true, count: 10))
    assert_equal [[i64(5), i64(6)], [i64(4)]], c.get_slice(KS, "k", parent("Super1"), reversed, ONE).map { |r| r.super_column.columns.map(&:name) }
    assert_equal [i64(6), i64(5)], names(c.get_slice(KS, "k", parent("Super1", "sc2"), reversed, ONE))
    c.remove(KS, "k", path("Super1", super_column: "sc2", column: i64(5)), 5, ONE)
    assert_equal [i64(6)], names(c.get_slice(KS, "k", parent("Super1", "sc2"), ALL, ONE))
    c.remove(KS, "k", path("Super1", super_column: "sc2"), 5, ONE)
    assert_raises(NotFoundException) { c.get(KS, "k", path("Super1", super_column: "sc2"), ONE) }
    c.insert(KS, "k", path("Super1", super_column: "sc2", column: i64(5)), "again", 6, ONE)
    assert_equal [col(i64(5), "again", 6)], c.get(KS, "k", path("Super1", super_column: "sc2"), ONE).super_column.columns
    c.batch_mutate(KS, { "k" => { "Super1" => [Mutation.new(deletion: Deletion.new(timestamp: 7, super_column: "sc1",
                                                                                   predicate: SlicePredicate.new(column_names: [i64(4)])))] } }, ONE)
    assert_equal %w[sc2], names(c.get_slice(KS, "k", parent("Super1"), ALL, ONE))
    c.remove(KS, "k", path("Super1"), 7, ONE)
    assert_equal [], c.get_slice(KS, "k", parent("Super1"), ALL, ONE)
  end

  def test_comparators
    c = raw(start_node)
    longs = [5, -5, 0, -2**63, 2**63 - 1, -1, 256]
    longs.each { |n| c.insert(KS, "k", path("StandardLong1", column: i64(n)), "v", 0, ONE) }
    assert_equal longs.sort, names(c.get_slice(KS, "k", parent("StandardLong1"), ALL, ONE)).map { |b| b.unpack1("q>") }

    bytes = ["\x00", "\x7f", "\x80", "\xff", "a", "ab", "B"].map(&:b)
    bytes.each { |n| c.insert(KS, "k", path("Standard1", column: n), "v", 0, ONE) }
    assert_equal bytes.sort, names(c.get_slice(KS, "k", parent("Standard1"), ALL, ONE))

    utf8 = %w[z a é € 日本 😀]
    expected = utf8.sort.map(&:b) # code point order, as bytes (the binding sends names as binary)
    utf8.each { |n| c.insert(KS, "k", path("Super4", super_column: "sc", column: n.dup), "v", 0, ONE) }
    assert_equal expected, names(c.get_slice(KS, "k", parent("Super4", "sc"), ALL, ONE))

    ids = Array.new(300) { ::Cassandra::UUID.new }
    ids.shuffle(random: Random.new(1)).each { |u| c.insert("Keyspace2", "k", path("Super4", super_column: "sc", column: u.to_s), "v", 0, ONE) }
    assert_equal ids.map(&:to_s), names(c.get_slice("Keyspace2", "k", parent("Super4", "sc"), ALL, ONE))
  end

  def test_validation_messages
    c = raw(start_node)
    assert_why("Key may not be empty") { c.get(KS, "", path("Standard1", column: "c"), ONE) }
    assert_why("Encoded key length of 65536 is longer than maximum of 65535") { c.insert(KS, "x" * 65536, path("Standard1", column: "c"), "v", 0, ONE) }
    assert_why("Keyspace Nope does not exist in this schema.") { c.get("Nope", "k", path("Standard1", column: "c"), ONE) }
    assert_why("unconfigured columnfamily Nope") { c.get_count(KS, "k", parent("Nope"), ONE) }
    assert_why("column parameter is not optional for standard CF Standard1") { c.get(KS, "k", path("Standard1"), ONE) }
    assert_why("supercolumn parameter is not optional for super CF Super1") { c.get(KS, "k", path("Super1"), ONE) }
    assert_why("supercolumn parameter is invalid for standard CF Standard1") { c.insert(KS, "k", path("Standard1", super_column: "x", column: "y"), "v", 0, ONE) }
    assert_why("A long is exactly 8 bytes") { c.insert(KS, "k", path("Super1", super_column: "sc", column: "x"), "v", 0, ONE) }
    assert_why("column name must not be empty") { c.insert(KS, "k", path("Standard1", column: ""), "v", 0, ONE) }
    assert_why("invalid UTF8 bytes [-61, 40]") { c.insert(KS, "k", path("Super4", super_column: "sc", column: "\xc3\x28".b), "v", 0, ONE) }
    assert_why("TimeUUID should be 16 or 0 bytes (3)") { c.insert("Keyspace2", "k", path("Super4", super_column: "sc", column: "abc"), "v", 0, ONE) }
    assert_why("Invalid version for TimeUUID type.") { c.insert("Keyspace2", "k", path("Super4", super_column: "sc", column: SecureRandom.uuid.delete("-").then { |h| [h].pack("H*") }), "v", 0, ONE) }
    assert_why("range finish must come after start in the order of traversal") do
      c.get_slice(KS, "k", parent("StandardLong1"), SlicePredicate.new(slice_range: SliceRange.new(start: i64(10), finish: i64(0), reversed: false, count: 1)), ONE)
    end
    assert_why("predicate column_names and slice_range may not both be present") do
      c.get_slice(KS, "k", parent("Standard1"), SlicePredicate.new(column_names: ["a"], slice_range: SliceRange.new(start: "", finish: "")), ONE)
    end
    assert_why("start key must sort before (or equal to) finish key in your partitioner!") do
      c.get_range_slices(KS, parent("Standard1"), ALL, KeyRange.new(start_key: "b", end_key: "a"), ONE)
    end
    assert_why("Deletion does not yet support SliceRange predicates.") do
      c.batch_mutate(KS, { "k" => { "Standard1" => [Mutation.new(deletion: Deletion.new(timestamp: 1, predicate: ALL))] } }, ONE)
    end
    assert_why("Consistency level zero may not be applied to read operations") { c.get(KS, "k", path("Standard1", column: "c"), ConsistencyLevel::ZERO) }
    assert_why("There is no ring for the keyspace: system") { c.describe_ring("system") }
  end

  def auth_node(extra = ["-passwd", PASSWD, "-access", ACCESS])
    start_node(Thriftd.with_authenticator(@tmp, TEST_CONF), extra: extra)
  end

  def credentials(user, password)
    AuthenticationRequest.new(credentials: { "username" => user, "password" => password })
  end

  def test_authentication_with_the_fixture_files
    node = auth_node
    c = raw(node)
    assert_why("Login is required before any other API calls") { c.insert(KS, "k", path("Standard1", column: "c"), "v", 0, ONE) }
    assert_equal "2.2.0", c.describe_version
    assert_why("Given password in password mode PLAIN could not be validated for user alice", AuthenticationException) { c.login(KS, credentials("alice", "x")) }
    assert_why("Given password in password mode PLAIN could not be validated for user nobody", AuthenticationException) { c.login(KS, credentials("nobody", "x")) }
    assert_why("User bob could not be authorized to use keyspace Keyspace1", AuthorizationException) { c.login(KS, credentials("bob", "builder42")) }
    assert_why("User alice could not be authorized to use keyspace Keyspace2", AuthorizationException) { c.login("Keyspace2", credentials("alice", "wonderland7")) }
    assert_why("Authentication request was missing the required key 'password'", AuthenticationException) do
      c.login(KS, AuthenticationRequest.new(credentials: { "username" => "alice" }))
    end
    c.login(KS, credentials("Grace Hopper", "cobol1959"))
    c.insert(KS, "k", path("Standard1", column: "c"), "v", 0, ONE)
    c.insert("Keyspace2", "k", path("Standard1", column: "c"), "v", 0, ONE)
    other = raw(node, framed: true)
    assert_why("Login is required before any other API calls") { other.get(KS, "k", path("Standard1", column: "c"), ONE) }
    other.login(KS, credentials("alice", "wonderland7"))
    assert_equal "v", other.get(KS, "k", path("Standard1", column: "c"), ONE).column.value
  end

  def test_authentication_in_md5_mode
    passwd = File.join(@tmp, "passwd-md5.properties")
    File.write(passwd, "alice=#{Digest::MD5.hexdigest('wonderland7')}\n")
    c = raw(auth_node(["-passwd", passwd, "-access", ACCESS, "-passwd-mode", "MD5"]))
    assert_why("Given password in password mode MD5 could not be validated for user alice", AuthenticationException) do
      c.login(KS, credentials("alice", Digest::MD5.hexdigest("wonderland7")))
    end
    c.login(KS, credentials("alice", "wonderland7"))
    assert_equal 0, c.get_count(KS, "k", parent("Standard1"), ONE)
  end

  def test_data_survives_restarts
    first = start_node(DEFAULT_CONF)
    c = raw(first)
    50.times { |i| c.insert(KS, "row#{i}", path("Standard1", column: "c"), "v#{i}", 5, ONE) }
    c.insert(KS, "s", path("Super2", super_column: "sc", column: "é"), "accent", 5, ONE)
    c.remove(KS, "row0", path("Standard1"), 6, ONE)
    c.close
    assert_equal 0, first.stop.exitstatus

    second = start_node(DEFAULT_CONF, data: first.data)
    c = raw(second)
    assert_equal "v7", c.get(KS, "row7", path("Standard1", column: "c"), ONE).column.value
    assert_equal "accent", c.get(KS, "s", path("Super2", super_column: "sc", column: "é"), ONE).column.value
    assert_raises(NotFoundException) { c.get(KS, "row0", path("Standard1", column: "c"), ONE) }
    c.insert(KS, "after", path("Standard1", column: "c"), "kill", 5, ONE)
    second.kill

    third = start_node(DEFAULT_CONF, data: first.data)
    c = raw(third)
    assert_equal "kill", c.get(KS, "after", path("Standard1", column: "c"), ONE).column.value
    rows = c.get_range_slices(KS, parent("Standard1"), ALL, KeyRange.new(start_key: "", end_key: "", count: 100), ONE)
    assert_equal 51, rows.size
    assert_equal 50, rows.count { |r| !r.columns.empty? }
  end

  def test_random_partitioner_token_order
    c = raw(start_node(DEFAULT_CONF))
    keys = (0...20).map { |i| "key#{i}" }
    keys.each { |k| c.insert(KS, k, path("Standard1", column: "c"), "v", 0, ONE) }
    token = ->(k) { Digest::MD5.digest(k).unpack("C*").inject(0) { |a, b| (a << 8) | b }.then { |n| n >= 2**127 ? (2**128 - n) : n } }
    ring = keys.sort_by(&token)
    got = c.get_range_slices(KS, parent("Standard1"), ALL, KeyRange.new(start_key: "", end_key: "", count: 100), ONE)
    assert_equal ring, got.map(&:key)
    got = c.get_range_slices(KS, parent("Standard1"), ALL,
                             KeyRange.new(start_token: token.call(ring[15]).to_s, end_token: token.call(ring[3]).to_s, count: 100), ONE)
    assert_equal ring[16..] + ring[0..3], got.map(&:key)
  end
end
