# KEYS secondary indexes as the Ruby cassandra gem's 1.x releases use them
# (Cassandra#create_index, create_index_clause and create_idx_expr,
# get_indexed_slices): a family created with an indexed ColumnDef, an index
# added later to a family holding rows, EQ with GT and LT clauses, paging by
# start_key, count, get_range_slices with row_filter, and deletions and
# updates seen by the next query.

require_relative "helper19"

class TestIndexes19 < Thriftd19Test
  STATES = %w[CA NY TX].freeze

  def setup
    super
    @c = connect(nil)
    @new_ks = "rb19ix_#{SecureRandom.hex(5)}"
    @closers.unshift(lambda do
      @c.system_drop_keyspace(@new_ks) if @c.describe_keyspaces.map(&:name).include?(@new_ks)
    end)
  end

  def users_def(indexed: true)
    meta = [C::ColumnDef.new(name: "age", validation_class: "LongType")]
    if indexed
      meta << C::ColumnDef.new(name: "state", validation_class: "UTF8Type", index_type: C::IndexType::KEYS,
                               index_name: "users_state")
    end
    C::CfDef.new(keyspace: @new_ks, name: "Users", comparator_type: "UTF8Type", column_metadata: meta)
  end

  def make(cf)
    @c.system_add_keyspace(C::KsDef.new(name: @new_ks, strategy_class: "org.apache.cassandra.locator.SimpleStrategy",
                                        strategy_options: { "replication_factor" => "1" }, cf_defs: [cf]))
    @c.set_keyspace(@new_ks)
  end

  # The gem's insert: one batch_mutate per row. n users u00.. with state
  # STATES[i % 3] and age i.
  def load(n = 30)
    n.times do |i|
      cols = { "state" => STATES[i % 3], "age" => i64(i), "name" => "user #{i}" }
      mutations = cols.map do |name, value|
        C::Mutation.new(column_or_supercolumn: C::ColumnOrSuperColumn.new(
          column: C::Column.new(name: name, value: value, timestamp: 1)))
      end
      @c.batch_mutate({ user(i) => { "Users" => mutations } }, ONE)
    end
  end

  def user(i)
    format("u%02d", i)
  end

  def users(ages)
    ages.map { |a| user(a) }.sort
  end

  def expr(name, op, value)
    C::IndexExpression.new(column_name: name, op: op, value: value)
  end

  def eq(name, value)
    expr(name, C::IndexOperator::EQ, value)
  end

  def parent
    C::ColumnParent.new(column_family: "Users")
  end

  def indexed(exprs, start: "", count: 100, pred: all)
    @c.get_indexed_slices(parent, C::IndexClause.new(expressions: exprs, start_key: start, count: count), pred, ONE)
  end

  def keys(slices)
    slices.map(&:key)
  end

  def test_family_created_with_an_index
    make(users_def)
    meta = @c.describe_keyspace(@new_ks).cf_defs.find { |d| d.name == "Users" }.column_metadata
    state = meta.find { |m| m.name == "state" }
    assert_equal [C::IndexType::KEYS, "users_state"], [state.index_type, state.index_name]
    load
    ny = indexed([eq("state", "NY")])
    assert_equal users((1...30).step(3)), keys(ny).sort
    # In the partitioner's order, as a range scan returns the family.
    scan = keys(@c.get_range_slices(parent, all, C::KeyRange.new(start_key: "", end_key: "", count: 100), ONE))
    assert_equal scan & keys(ny), keys(ny)
    row = ny.find { |s| s.key == "u04" }
    assert_equal [["age", i64(4)], ["name", "user 4"], %w[state NY]], row.columns.map { |x| [x.column.name, x.column.value] }

    got = indexed([eq("state", "NY"), expr("age", C::IndexOperator::GT, i64(10)), expr("age", C::IndexOperator::LT, i64(25))])
    assert_equal users([13, 16, 19, 22]), keys(got).sort
    assert_equal [], indexed([eq("state", "WA")])
    # A small slice of each matching row.
    got = indexed([eq("state", "CA"), expr("age", C::IndexOperator::LTE, i64(6))], pred: C::SlicePredicate.new(column_names: ["name"]))
    assert_equal [["u00", ["user 0"]], ["u03", ["user 3"]], ["u06", ["user 6"]]],
                 got.map { |s| [s.key, s.columns.map { |x| x.column.value }] }.sort
  end

  def test_paging_by_start_key_and_count
    make(users_def)
    load
    everything = keys(indexed([eq("state", "TX")]))
    assert_equal users((2...30).step(3)), everything.sort
    assert_equal everything.first(3), keys(indexed([eq("state", "TX")], count: 3))
    # The gem pages from the last key seen, which comes back first.
    seen = []
    start = ""
    loop do
      page = keys(indexed([eq("state", "TX")], start: start, count: 3))
      unless seen.empty?
        assert_equal seen.last, page.first
        page = page.drop(1)
      end
      seen.concat(page)
      break if page.size < 2

      start = seen.last
    end
    assert_equal everything, seen
  end

  def test_range_slices_with_a_row_filter
    make(users_def)
    load
    filter = [eq("state", "CA"), expr("age", C::IndexOperator::GTE, i64(15))]
    got = @c.get_range_slices(parent, all, C::KeyRange.new(start_key: "", end_key: "", count: 100, row_filter: filter), ONE)
    assert_equal users([15, 18, 21, 24, 27]), keys(got).sort
    assert_equal keys(indexed(filter)), keys(got)
    two = @c.get_range_slices(parent, all, C::KeyRange.new(start_key: "", end_key: "", count: 2, row_filter: filter), ONE)
    assert_equal keys(got).first(2), keys(two)
  end

  def test_deletions_and_updates_are_seen_by_the_next_query
    make(users_def)
    load
    col = ->(n, v, ts) { C::Column.new(name: n, value: v, timestamp: ts) }
    @c.insert("u01", parent, col.("state", "TX", 2), ONE)
    @c.remove("u04", C::ColumnPath.new(column_family: "Users", column: "state"), 2, ONE)
    @c.remove("u07", C::ColumnPath.new(column_family: "Users"), 2, ONE)
    @c.insert("u40", parent, col.("state", "NY", 2), ONE)
    @c.insert("u13", parent, col.("age", i64(1), 2), ONE)
    assert_equal users([10, 13, 16, 19, 22, 25, 28, 40]), keys(indexed([eq("state", "NY")])).sort
    assert_equal users([13]), keys(indexed([eq("state", "NY"), expr("age", C::IndexOperator::LT, i64(10))]))
    assert_includes keys(indexed([eq("state", "TX")])), "u01"
    # An older write loses to the newer value.
    @c.insert("u01", parent, col.("state", "NY", 1), ONE)
    refute_includes keys(indexed([eq("state", "NY")])), "u01"
  end

  def test_index_added_to_a_family_holding_data
    make(users_def(indexed: false))
    load
    assert_why("No indexed columns present in index clause with operator EQ") { indexed([eq("state", "NY")]) }
    # The gem's create_index: describe the family, add the ColumnDef,
    # send it back.
    cf = @c.describe_keyspace(@new_ks).cf_defs.find { |d| d.name == "Users" }
    cf.column_metadata << C::ColumnDef.new(name: "state", validation_class: "UTF8Type", index_type: C::IndexType::KEYS)
    @c.system_update_column_family(cf)
    want = users((1...30).step(3))
    # The rows already written are found once the server has built the
    # index, which it may do in the background.
    deadline = Time.now + 30
    sleep 0.2 while keys(indexed([eq("state", "NY")])).sort != want && Time.now < deadline
    assert_equal want, keys(indexed([eq("state", "NY")])).sort
    @c.insert("u02", parent, C::Column.new(name: "state", value: "NY", timestamp: 2), ONE)
    assert_equal (want + ["u02"]).sort, keys(indexed([eq("state", "NY")])).sort
  end

  def test_refusals
    make(users_def)
    load(3)
    assert_why("No indexed columns present in index clause with operator EQ") do
      indexed([expr("age", C::IndexOperator::GT, i64(0))])
    end
    assert_why("index clause list may not be empty") { indexed([]) }
  end
end
