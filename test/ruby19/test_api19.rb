# The common flows of the Ruby cassandra gem's 1.x releases, through the
# 19.x API: set_keyspace, schema changes, insert (a batch_mutate per row,
# as the gem writes) with and without TTL, slices, multiget, range paging,
# batches and removes.

require_relative "helper19"

class TestApi19 < Thriftd19Test
  # The gem's insert: one batch_mutate of the row's columns.
  def insert(c, cf, key, columns, ttl: nil, ts: now)
    mutations = columns.map do |name, value|
      C::Mutation.new(column_or_supercolumn: C::ColumnOrSuperColumn.new(
        column: C::Column.new(name: name, value: value, timestamp: ts, ttl: ttl)))
    end
    c.batch_mutate({ key => { cf => mutations } }, ONE)
  end

  def test_set_keyspace_and_its_errors
    c = connect(nil)
    # thriftd answers in 2.0-2.1's words; the suite's reference target,
    # Cassandra 1.2.19, in its own.
    no_keyspace = Thriftd19.target ? "no keyspace has been specified" : "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"
    assert_why(no_keyspace) { c.get_slice("k", C::ColumnParent.new(column_family: "Standard1"), all, ONE) }
    assert_why("Keyspace 'NoSuchKeyspaceRb' does not exist") { c.set_keyspace("NoSuchKeyspaceRb") }
    c.set_keyspace(@ks)
    assert_equal [], c.get_slice(key, C::ColumnParent.new(column_family: "Standard1"), all, ONE)
    assert(c.describe_version.start_with?("19."))
  end

  def test_insert_and_get
    c = connect
    k = key
    insert(c, "Standard1", k, { "b" => "2", "a" => "1", "c" => "3" }, ts: 7)
    parent = C::ColumnParent.new(column_family: "Standard1")
    assert_equal %w[a b c], names(c.get_slice(k, parent, all, ONE))
    col = c.get(k, C::ColumnPath.new(column_family: "Standard1", column: "b"), ONE).column
    assert_equal ["b", "2", 7, nil], [col.name, col.value, col.timestamp, col.ttl]
    assert_raises(C::NotFoundException) { c.get(k, C::ColumnPath.new(column_family: "Standard1", column: "z"), ONE) }
    reversed = C::SlicePredicate.new(slice_range: C::SliceRange.new(start: "", finish: "", reversed: true, count: 2))
    assert_equal %w[c b], names(c.get_slice(k, parent, reversed, ONE))
    assert_equal 3, c.get_count(k, parent, all, ONE)
    byname = C::SlicePredicate.new(column_names: %w[c zz a])
    assert_equal %w[a c], names(c.get_slice(k, parent, byname, ONE))
    assert_why("Key may not be empty") { insert(c, "Standard1", "", { "a" => "1" }) }
    assert_why("unconfigured columnfamily Nope") { insert(c, "Nope", k, { "a" => "1" }) }
    assert_why("ttl must be positive") { insert(c, "Standard1", k, { "a" => "1" }, ttl: 0) }
  end

  def test_insert_with_ttl
    c = connect
    k = key
    # The TTL is read back from a column that cannot expire before the
    # read, however slow the machine; the expiry is tested with a TTL of
    # 1 s, waited for.
    insert(c, "Standard1", k, { "keep" => "v" }, ttl: 3600)
    assert_equal 3600, c.get(k, C::ColumnPath.new(column_family: "Standard1", column: "keep"), ONE).column.ttl
    insert(c, "Standard1", k, { "brief" => "v" }, ttl: 1)
    parent = C::ColumnParent.new(column_family: "Standard1")
    wait_until("the column with a TTL of 1 s has not expired") do
      names(c.get_slice(k, parent, all, ONE)) == %w[keep]
    end
  end

  def test_multi_get
    c = connect
    keys = [key("m"), key("m"), key("m")]
    insert(c, "Standard1", keys[0], { "a" => "1" })
    insert(c, "Standard1", keys[1], { "a" => "1", "b" => "2" })
    got = c.multiget_slice(keys, C::ColumnParent.new(column_family: "Standard1"), all, ONE)
    assert_equal keys.sort, got.keys.sort
    assert_equal [%w[a], %w[a b], []], keys.map { |k| names(got[k]) }
    counts = c.multiget_count(keys, C::ColumnParent.new(column_family: "Standard1"), all, ONE)
    assert_equal({ keys[0] => 1, keys[1] => 2, keys[2] => 0 }, counts)
  end

  def test_get_range_paging
    c = connect
    tag = key("r")
    mine = (0...17).map { |i| format("%s-%02d", tag, i) }
    mine.each { |k| insert(c, "Standard1", k, { "col" => k }) }
    # The gem's get_range: pages of batch_size rows from the last key seen,
    # dropping the repeated first row of every later page.
    seen = []
    start = ""
    loop do
      page = c.get_range_slices(C::ColumnParent.new(column_family: "Standard1"), C::SlicePredicate.new(column_names: ["col"]),
                                C::KeyRange.new(start_key: start, end_key: "", count: 5), ONE)
      page = page.drop(1) unless seen.empty?
      seen.concat(page.map(&:key))
      break if page.size < 4

      start = seen.last
    end
    assert_equal seen.uniq, seen
    assert_equal mine.sort, (seen & mine).sort
    assert_why("maxRows must be positive") do
      c.get_range_slices(C::ColumnParent.new(column_family: "Standard1"), all, C::KeyRange.new(start_key: "", end_key: "", count: 0), ONE)
    end
  end

  def test_batch_and_remove
    c = connect
    k1 = key("b")
    k2 = key("b")
    insert(c, "Standard1", k2, { "old" => "x", "keep" => "y" }, ts: 1)
    # The gem's batch: every operation of the block in one batch_mutate.
    col = ->(n, v) { C::Mutation.new(column_or_supercolumn: C::ColumnOrSuperColumn.new(column: C::Column.new(name: n, value: v, timestamp: 5))) }
    c.batch_mutate({
      k1 => { "Standard1" => [col.("a", "1"), col.("b", "2")],
              "Super1" => [C::Mutation.new(column_or_supercolumn: C::ColumnOrSuperColumn.new(
                super_column: C::SuperColumn.new(name: "sc", columns: [C::Column.new(name: "s", value: "3", timestamp: 5)])))] },
      k2 => { "Standard1" => [C::Mutation.new(deletion: C::Deletion.new(timestamp: 5, predicate: C::SlicePredicate.new(column_names: ["old"])))] },
    }, ONE)
    parent = C::ColumnParent.new(column_family: "Standard1")
    assert_equal %w[a b], names(c.get_slice(k1, parent, all, ONE))
    assert_equal %w[keep], names(c.get_slice(k2, parent, all, ONE))
    sc = c.get(k1, C::ColumnPath.new(column_family: "Super1", super_column: "sc"), ONE).super_column
    assert_equal [%w[s 3]], sc.columns.map { |x| [x.name, x.value] }
    assert_why("mutation must have one and only one of column_or_supercolumn or deletion") do
      c.batch_mutate({ k1 => { "Standard1" => [C::Mutation.new] } }, ONE)
    end
    # The gem's remove: a column, then the row.
    c.remove(k1, C::ColumnPath.new(column_family: "Standard1", column: "a"), now, ONE)
    assert_equal %w[b], names(c.get_slice(k1, parent, all, ONE))
    c.remove(k1, C::ColumnPath.new(column_family: "Standard1"), now, ONE)
    assert_equal [], c.get_slice(k1, parent, all, ONE)
    c.remove(k1, C::ColumnPath.new(column_family: "Super1", super_column: "sc"), now, ONE)
    assert_equal [], c.get_slice(k1, C::ColumnParent.new(column_family: "Super1"), all, ONE)
  end

  def test_schema
    c = connect(nil)
    ks = "rb19ks_#{SecureRandom.hex(5)}"
    c.system_add_keyspace(C::KsDef.new(name: ks, strategy_class: "org.apache.cassandra.locator.SimpleStrategy",
                                       strategy_options: { "replication_factor" => "1" }, cf_defs: []))
    begin
      c.set_keyspace(ks)
      c.system_add_column_family(C::CfDef.new(keyspace: ks, name: "Users", comparator_type: "UTF8Type",
                                              key_validation_class: "UTF8Type", default_validation_class: "UTF8Type"))
      insert(c, "Users", "jsmith", { "first" => "John", "last" => "Smith" })
      assert_equal %w[first last], names(c.get_slice("jsmith", C::ColumnParent.new(column_family: "Users"), all, ONE))
      cf = c.describe_keyspace(ks).cf_defs.find { |d| d.name == "Users" }
      cf.comment = "people"
      c.system_update_column_family(cf)
      assert_equal "people", c.describe_keyspace(ks).cf_defs.find { |d| d.name == "Users" }.comment
      c.system_drop_column_family("Users")
      assert_why("unconfigured columnfamily Users") { insert(c, "Users", "jsmith", { "first" => "J" }) }
    ensure
      c.system_drop_keyspace(ks) if (c.describe_keyspaces.map(&:name).include?(ks) rescue false)
    end
    assert_raises(C::NotFoundException) { c.describe_keyspace(ks) }
  end
end
