# Shared pieces of the 19.x Ruby suite: the generated 19.x bindings
# (clients/ruby/lib/cassandra_thrift19, Debian's ruby-thrift) used the way
# the Ruby cassandra gem's 1.x releases use them, against one thriftd for
# the whole run serving the 19.x API (the stock 0.6 configuration:
# RandomPartitioner, Keyspace1), on LevelDB or, with
# THRIFTD_TEST_BACKEND=cassandra, on the Cassandra node
# $THRIFTD_CASSANDRA_RANDOM. THRIFTD19_TARGET=host:port runs the suite
# against another 19.x server instead, such as the real Cassandra 1.2.19 of
# test/cassandra/reference, on a keyspace of Keyspace1's shape the suite
# creates there.

require_relative "../ruby/helper"
require "securerandom"
require "cassandra_thrift19/cassandra"

module Thriftd19
  C = CassandraThrift19
  ONE = C::ConsistencyLevel::ONE

  # The store of the suite's own thriftd: leveldb, or cassandra
  # (THRIFTD_TEST_BACKEND=cassandra, as test/suites/cassandra.sh runs it).
  def self.backend
    b = ENV["THRIFTD_TEST_BACKEND"].to_s
    b = "leveldb" if b.empty?
    raise "THRIFTD_TEST_BACKEND=#{b}: want leveldb or cassandra" unless %w[leveldb cassandra].include?(b)
    b
  end

  def self.target
    t = ENV["THRIFTD19_TARGET"].to_s
    t.empty? ? nil : t
  end

  def self.connect(host, port, keyspace = nil)
    # A schema change on the Cassandra store waits for the nodes to agree,
    # up to thriftd's 2-minute bound: a call must be given longer than that
    # to get thriftd's own answer on a busy machine.
    socket = Thrift::Socket.new(host, port, CALL_TIMEOUT)
    transport = Thrift::FramedTransport.new(socket)
    transport.open
    c = RawClient.new(C::Cassandra::Client.new(Thrift::BinaryProtocol.new(transport)), transport)
    c.set_keyspace(keyspace) if keyspace
    c
  end

  # Keyspace1 of the stock configuration, as 19.x CfDefs.
  def self.keyspace1_cfs(ks)
    [
      C::CfDef.new(keyspace: ks, name: "Standard1", comparator_type: "BytesType"),
      C::CfDef.new(keyspace: ks, name: "Standard2", comparator_type: "UTF8Type"),
      C::CfDef.new(keyspace: ks, name: "Super1", column_type: "Super", comparator_type: "BytesType",
                   subcomparator_type: "BytesType"),
    ]
  end

  # The server of the run: [host, port, keyspace].
  def self.server
    @server ||= begin
      if target
        host, _, port = target.rpartition(":")
        ks = "rb19_#{SecureRandom.hex(5)}"
        c = connect(host, Integer(port))
        c.system_add_keyspace(C::KsDef.new(name: ks, strategy_class: "org.apache.cassandra.locator.SimpleStrategy",
                                           strategy_options: { "replication_factor" => "1" },
                                           cf_defs: keyspace1_cfs(ks)))
        c.close
        at_exit do
          c = connect(host, Integer(port))
          c.system_drop_keyspace(ks)
          c.close
        end
        [host, Integer(port), ks]
      else
        dir = Dir.mktmpdir("thriftd-rb19")
        data = File.join(dir, "data")
        store = []
        if backend == "cassandra"
          # The stock configuration is RandomPartitioner's: the "random"
          # node of test/cassandra/cluster, under a prefix of this run's.
          points = ENV["THRIFTD_CASSANDRA_RANDOM"].to_s
          raise "THRIFTD_TEST_BACKEND=cassandra needs THRIFTD_CASSANDRA_RANDOM (test/cassandra/cluster start random)" if points.empty?
          store = ["-cassandra", points, "-cassandra-prefix", "t#{SecureRandom.hex(5)}_"]
          data = nil
        end
        node = Thriftd::Node.new(DEFAULT_CONF, data: data, workdir: File.join(dir, "work"),
                                               extra: ["-api", "auto", *store])
        node.start
        # Minitest runs the tests in its own at_exit handler, registered
        # before this one and so run after it: stop thriftd from the
        # after-run hook instead.
        Minitest.after_run do
          node.stop
          unless store.empty? || ENV["THRIFTD_CASSANDRA_KEEP_KEYSPACES"] == "1"
            system(Thriftd.binary, "-config", DEFAULT_CONF, *store, "-cassandra-drop", out: File::NULL, err: File::NULL) ||
              warn("dropping the keyspaces of #{store.last} failed")
          end
          FileUtils.rm_rf(dir)
        end
        [node.host, node.port, "Keyspace1"]
      end
    end
  end
end

class Thriftd19Test < Minitest::Test
  C = CassandraThrift19
  ONE = Thriftd19::ONE

  def setup
    @host, @port, @ks = Thriftd19.server
    @closers = []
  end

  def teardown
    @closers.each { |c| c.call rescue nil }
  end

  # A framed client, its keyspace set (none when keyspace is nil).
  def connect(keyspace = @ks)
    c = Thriftd19.connect(@host, @port, keyspace)
    @closers << -> { c.close }
    c
  end

  def key(prefix = "k")
    "#{prefix}-#{SecureRandom.hex(6)}"
  end

  # Microseconds since the epoch, the gem's timestamps.
  def now
    (Time.now.to_f * 1_000_000).to_i
  end

  def i64(n)
    [n].pack("q>")
  end

  def all(count = 100)
    C::SlicePredicate.new(slice_range: C::SliceRange.new(start: "", finish: "", reversed: false, count: count))
  end

  def names(cosc)
    cosc.map { |c| c.column.name }
  end

  def assert_why(message, exception = C::InvalidRequestException)
    e = assert_raises(exception) { yield }
    assert_equal message, e.why
  end

  # wait_until polls the block until it is true: a TTL's expiry is waited
  # for, as long as a busy machine needs, up to timeout seconds.
  def wait_until(what, timeout = 120)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    until yield
      flunk "after #{timeout} s, #{what}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.2
    end
  end
end
