# Counters as the Ruby cassandra gem's 1.x releases use them: a
# CounterColumnType family, Cassandra#add (the 19.x add, positive and
# negative), counters read back by get, get_slice, multiget_slice and
# get_range_slices as CounterColumn, counter batches, and remove_counter.

require_relative "helper19"

class TestCounters19 < Thriftd19Test
  def setup
    super
    @c = connect(nil)
    @new_ks = "rb19ct_#{SecureRandom.hex(5)}"
    @c.system_add_keyspace(C::KsDef.new(
      name: @new_ks, strategy_class: "org.apache.cassandra.locator.SimpleStrategy",
      strategy_options: { "replication_factor" => "1" },
      cf_defs: [C::CfDef.new(keyspace: @new_ks, name: "Hits", comparator_type: "UTF8Type",
                             default_validation_class: "CounterColumnType"),
                C::CfDef.new(keyspace: @new_ks, name: "Plain", comparator_type: "UTF8Type")]))
    @closers.unshift(-> { @c.system_drop_keyspace(@new_ks) })
    @c.set_keyspace(@new_ks)
  end

  def hits
    C::ColumnParent.new(column_family: "Hits")
  end

  def add(key, name, by)
    @c.add(key, hits, C::CounterColumn.new(name: name, value: by), ONE)
  end

  def totals(cosc)
    cosc.map { |x| [x.counter_column.name, x.counter_column.value] }
  end

  def test_add_and_read
    add("page", "views", 5)
    add("page", "views", -2)
    add("page", "likes", 1)
    # The gem's batch of counter columns: one batch_mutate.
    inc = ->(n, v) { C::Mutation.new(column_or_supercolumn: C::ColumnOrSuperColumn.new(counter_column: C::CounterColumn.new(name: n, value: v))) }
    @c.batch_mutate({ "page" => { "Hits" => [inc.("likes", 6)] }, "other" => { "Hits" => [inc.("views", 10)] } }, ONE)
    got = @c.get("page", C::ColumnPath.new(column_family: "Hits", column: "views"), ONE)
    assert_nil got.column
    assert_equal 3, got.counter_column.value
    assert_equal [["likes", 7], ["views", 3]], totals(@c.get_slice("page", hits, all, ONE))
    multi = @c.multiget_slice(%w[page other], hits, all, ONE)
    assert_equal [["views", 10]], totals(multi["other"])
    range = @c.get_range_slices(hits, all, C::KeyRange.new(start_key: "", end_key: "", count: 10), ONE)
    assert_equal({ "other" => [["views", 10]], "page" => [["likes", 7], ["views", 3]] },
                 range.to_h { |s| [s.key, totals(s.columns)] })
    assert_equal 2, @c.get_count("page", hits, all, ONE)
  end

  def test_remove_counter
    add("page", "views", 4)
    add("page", "likes", 2)
    # 1.2 stamps an add and a remove_counter with the server's clock in
    # milliseconds, and a removal in the same millisecond as the add does
    # not shadow it: applications never remove what they have just added.
    sleep 0.01
    @c.remove_counter("page", C::ColumnPath.new(column_family: "Hits", column: "likes"), ONE)
    assert_raises(C::NotFoundException) { @c.get("page", C::ColumnPath.new(column_family: "Hits", column: "likes"), ONE) }
    assert_equal [["views", 4]], totals(@c.get_slice("page", hits, all, ONE))
    @c.remove_counter("page", C::ColumnPath.new(column_family: "Hits"), ONE)
    assert_equal [], @c.get_slice("page", hits, all, ONE)
  end

  def test_refusals
    assert_why("invalid operation for non commutative columnfamily Plain") do
      @c.add("k", C::ColumnParent.new(column_family: "Plain"), C::CounterColumn.new(name: "a", value: 1), ONE)
    end
    assert_why("Consistency level ANY is not yet supported for counter columnfamily Hits") do
      @c.add("k", hits, C::CounterColumn.new(name: "a", value: 1), C::ConsistencyLevel::ANY)
    end
  end
end
