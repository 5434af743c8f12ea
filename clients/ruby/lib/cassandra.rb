# A small client for Cassandra 0.6's Thrift API (as served by thriftd), in
# the manner of the 0.6-era `cassandra` gem:
#
#   require "cassandra"
#   client = Cassandra.new("Keyspace1", "127.0.0.1:9160")
#   client.insert(:Standard1, "jsmith", "first" => "John", "last" => "Smith")
#   client.get(:Standard1, "jsmith")   # => {"first" => "John", "last" => "Smith"}
#
# The generated bindings are CassandraThrift (lib/cassandra_thrift); the
# raw Thrift client is Cassandra#client.

require "thrift"
require "cassandra_thrift/cassandra"
require "cassandra/long"
require "cassandra/uuid"
require "cassandra/columns"

class Cassandra
  include Columns

  # Raised for a column family the keyspace does not have, and other misuse
  # caught before anything is sent.
  class AccessError < StandardError; end

  # Consistency levels: Cassandra::Consistency::ONE, QUORUM, ALL, ...
  module Consistency
    include CassandraThrift::ConsistencyLevel
  end

  NotFoundException = CassandraThrift::NotFoundException
  InvalidRequestException = CassandraThrift::InvalidRequestException
  AuthenticationException = CassandraThrift::AuthenticationException
  AuthorizationException = CassandraThrift::AuthorizationException

  READ_DEFAULTS = { count: 100, start: nil, finish: nil, reversed: false, consistency: Consistency::ONE }.freeze
  WRITE_DEFAULTS = { timestamp: nil, consistency: Consistency::ONE }.freeze
  RANGE_DEFAULTS = { start: "", finish: "", count: 100, batch_size: 100, columns: nil,
                     filter_empty: true, consistency: Consistency::ONE }.freeze

  # Microseconds since the Unix epoch: the timestamp every write carries
  # unless given :timestamp.
  def self.timestamp
    Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)
  end

  attr_reader :keyspace, :servers, :options

  # keyspace: the keyspace every call works in. servers: "host:port" or a
  # list of them, tried in order on connection. options: :framed (use
  # TFramedTransport; thriftd accepts both on one port), :timeout (seconds,
  # per socket operation). The connection is opened on first use.
  def initialize(keyspace, servers = "127.0.0.1:9160", options = {})
    @keyspace = keyspace.to_s
    @servers = Array(servers)
    raise ArgumentError, "no server given" if @servers.empty?
    @options = { framed: false, timeout: nil }.merge(options)
    @batch = nil
  end

  def inspect
    "#<Cassandra keyspace=#{keyspace.inspect} servers=#{servers.inspect}>"
  end

  # The generated CassandraThrift::Cassandra::Client, connected.
  def client
    @client ||= connect
  end

  # Closes the connection; the next call opens a new one (logged out).
  def disconnect!
    @transport&.close
    @client = @transport = nil
  end

  # Logs this connection in for the keyspace (SimpleAuthenticator).
  def login!(username, password)
    request = CassandraThrift::AuthenticationRequest.new(credentials: { "username" => username, "password" => password })
    client.login(keyspace, request)
    self
  end

  # describe_keyspace of this keyspace, read once: the column families with
  # their types and comparators.
  def schema
    @schema ||= client.describe_keyspace(keyspace)
  end

  def column_families
    schema.keys
  end

  def keyspaces
    client.describe_keyspaces.to_a.sort
  end

  def cluster_name
    client.describe_cluster_name
  end

  def version
    client.describe_version
  end

  def partitioner
    client.describe_partitioner
  end

  # Writes hash to one row: {name => value} in a standard column family,
  # {super column => {name => value}} in a super column family. Names are
  # Strings, or for LongType Integers or Cassandra::Long, for TimeUUIDType
  # Cassandra::UUID. Options: :timestamp (default Cassandra.timestamp),
  # :consistency. Inside batch the write is queued. Returns the timestamp.
  def insert(column_family, key, hash, options = {})
    options = WRITE_DEFAULTS.merge(options)
    timestamp = options[:timestamp] || Cassandra.timestamp
    mutations = insert_mutations(column_family, hash, timestamp)
    dispatch(key, column_family, mutations, options[:consistency])
    timestamp
  end

  # remove(cf, key) deletes the row of that column family; remove(cf, key,
  # column) one column (or, in a super column family, one super column);
  # remove(cf, key, super_column, column) one subcolumn. Options:
  # :timestamp, :consistency. Returns the timestamp.
  def remove(column_family, key, *columns_and_options)
    column, sub_column, options = extract(columns_and_options, WRITE_DEFAULTS)
    timestamp = options[:timestamp] || Cassandra.timestamp
    mutation = deletion(column_family, column, sub_column, timestamp)
    if @batch
      dispatch(key, column_family, [mutation], options[:consistency])
    else
      d = mutation.deletion
      path = CassandraThrift::ColumnPath.new(column_family: column_family.to_s, super_column: d.super_column)
      path.column = d.predicate.column_names.first if d.predicate
      client.remove(keyspace, key.to_s, path, timestamp, options[:consistency])
    end
    timestamp
  end

  # The number of columns of a row (super columns in a super column family,
  # or subcolumns of the super column given). Options: :consistency.
  def count_columns(column_family, key, *columns_and_options)
    super_column, _, options = extract(columns_and_options, READ_DEFAULTS)
    client.get_count(keyspace, key.to_s, parent(column_family, super_column), options[:consistency])
  end

  # get(cf, key) is the row as a Hash; get(cf, key, column) one value (nil
  # when absent). In a super column family: get(cf, key) is
  # {super column => {name => value}}, get(cf, key, super_column) that super
  # column's Hash, get(cf, key, super_column, column) one value. Options:
  # :count (default 100), :start, :finish (inclusive bounds; Times for
  # TimeUUIDType names select a time range), :reversed, :columns (only these
  # names), :consistency. A missing row gives an empty Hash.
  def get(column_family, key, *columns_and_options)
    multi_get(column_family, [key], *columns_and_options)[key]
  end

  # get for several keys: a Hash of key => result, in the order of keys,
  # with every key present.
  def multi_get(column_family, keys, *columns_and_options)
    column, sub_column, options = extract(columns_and_options, READ_DEFAULTS)
    keys = keys.map(&:to_s)
    if single_column?(column_family, column, sub_column)
      path = path(column_family, column, sub_column)
      found = client.multiget(keyspace, keys, path, options[:consistency])
      keys.to_h { |k| [k, found[k]&.column&.value] }
    else
      sub = super?(column_family) && !column.nil?
      found = client.multiget_slice(keyspace, keys, parent(column_family, column),
                                    slice_predicate(column_family, sub, options), options[:consistency])
      keys.to_h { |k| [k, columns_to_hash(column_family, found[k] || [], sub)] }
    end
  end

  # The values of the named columns of a row, in the order asked (nil for
  # those absent): get_columns(cf, key, names), or in a super column family
  # get_columns(cf, key, super_column, names) for its subcolumns.
  def get_columns(column_family, key, *columns_and_options)
    first, second, options = extract(columns_and_options, READ_DEFAULTS)
    super_column, names = second.nil? ? [nil, first] : [first, second]
    names = Array(names)
    row = get(column_family, key, *[super_column].compact, options.merge(columns: names))
    cmp = comparator(column_family, !super_column.nil?)
    names.map { |n| row[from_name(to_name(n, cmp), cmp)] }
  end

  # Whether the row (or the column, super column, subcolumn named) has data.
  def exists?(column_family, key, *columns_and_options)
    column, sub_column, options = extract(columns_and_options, READ_DEFAULTS)
    if single_column?(column_family, column, sub_column)
      !get(column_family, key, column, *[sub_column].compact, options).nil?
    else
      count_columns(column_family, key, *[column].compact, options) > 0
    end
  end

  # The rows from key :start to key :finish (inclusive; "" is open), in the
  # partitioner's order, as a Hash of key => columns; or, given a block,
  # yields key, columns for each. Pages through get_range_slices
  # :batch_size rows at a time without repeating the key each page starts
  # at. Options: :count (most rows, default 100; nil for all), :columns
  # (only these names), :filter_empty (default true: skip "range ghosts",
  # rows deleted or without the asked columns), :consistency.
  def get_range(column_family, options = {}, &block)
    options = RANGE_DEFAULTS.merge(options)
    return enum_for(:get_range, column_family, options).to_h unless block
    raise ArgumentError, ":batch_size must be at least 2" if options[:batch_size] < 2
    predicate = slice_predicate(column_family, false, columns: options[:columns], count: 2**31 - 1)
    start = options[:start].to_s
    last = nil
    yielded = 0
    loop do
      range = CassandraThrift::KeyRange.new(start_key: start, end_key: options[:finish].to_s, count: options[:batch_size])
      slices = client.get_range_slices(keyspace, parent(column_family, nil), predicate, range, options[:consistency])
      slices.each do |slice|
        next if slice.key == last
        next if options[:filter_empty] && slice.columns.empty?
        yield slice.key, columns_to_hash(column_family, slice.columns, false)
        yielded += 1
        return if options[:count] && yielded >= options[:count]
      end
      return if slices.size < options[:batch_size]
      last = start = slices.last.key
    end
  end

  # The number of rows get_range would give.
  def count_range(column_family, options = {})
    n = 0
    get_range(column_family, { count: nil }.merge(options)) { n += 1 }
    n
  end

  # Deletes every row of a column family.
  def clear_column_family!(column_family, options = {})
    keys = []
    get_range(column_family, count: nil, filter_empty: false, consistency: options[:consistency] || Consistency::ONE) { |k, _| keys << k }
    batch(options) { keys.each { |k| remove(column_family, k, options) } }
  end

  # Queues every insert and remove of the block, then sends them in one
  # batch_mutate. Nothing is sent if the block raises. Options: :consistency
  # (default: that of the first queued write).
  def batch(options = {})
    raise AccessError, "batches do not nest" if @batch
    @batch = { rows: {}, consistency: options[:consistency] }
    yield self
    rows = @batch[:rows]
    client.batch_mutate(keyspace, rows, @batch[:consistency] || Consistency::ONE) unless rows.empty?
    nil
  ensure
    @batch = nil
  end

  private

  def connect
    last_error = nil
    @servers.each do |server|
      host, port = server.to_s.split(":", 2)
      socket = Thrift::Socket.new(host, Integer(port || 9160), @options[:timeout])
      transport = @options[:framed] ? Thrift::FramedTransport.new(socket) : Thrift::BufferedTransport.new(socket)
      begin
        transport.open
      rescue Thrift::TransportException => e
        last_error = e
        next
      end
      @transport = transport
      return CassandraThrift::Cassandra::Client.new(Thrift::BinaryProtocol.new(transport))
    end
    raise last_error
  end

  # Splits [column, sub_column, options] arguments.
  def extract(args, defaults)
    options = args.last.is_a?(Hash) ? args.pop : {}
    raise ArgumentError, "too many column arguments" if args.size > 2
    [args[0], args[1], defaults.merge(options)]
  end

  def single_column?(column_family, column, sub_column)
    super?(column_family) ? !sub_column.nil? : !column.nil?
  end

  def parent(column_family, super_column)
    sc = super_column && to_name(super_column, comparator(column_family))
    CassandraThrift::ColumnParent.new(column_family: column_family.to_s, super_column: sc)
  end

  def path(column_family, column, sub_column)
    if super?(column_family)
      CassandraThrift::ColumnPath.new(column_family: column_family.to_s,
                                      super_column: to_name(column, comparator(column_family)),
                                      column: to_name(sub_column, comparator(column_family, true)))
    else
      CassandraThrift::ColumnPath.new(column_family: column_family.to_s, column: to_name(column, comparator(column_family)))
    end
  end

  # Sends mutations of one row now, or queues them inside batch.
  def dispatch(key, column_family, mutations, consistency)
    return if mutations.empty?
    if @batch
      @batch[:consistency] ||= consistency
      (@batch[:rows][key.to_s] ||= {})[column_family.to_s] ||= []
      @batch[:rows][key.to_s][column_family.to_s].concat(mutations)
    else
      client.batch_mutate(keyspace, { key.to_s => { column_family.to_s => mutations } }, consistency)
    end
  end
end
