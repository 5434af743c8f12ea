# Shared pieces of the Ruby interop suite: fixture paths, thriftd processes
# on free loopback ports (each test on fresh data), and clients for them.
#
# thriftd is $THRIFTD_BIN when set (test/run-all sets it), else built once
# per run from the repository.

require "minitest/autorun"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

REPO = File.expand_path("../..", __dir__)
FIXTURES = File.join(REPO, "test", "fixtures")
TEST_CONF = File.join(FIXTURES, "storage-conf-0.6-test.xml")
DEFAULT_CONF = File.join(FIXTURES, "storage-conf-0.6-default.xml")
BLOG_CONF = File.join(FIXTURES, "storage-conf-bloggyappy.xml")
# The seconds a test client waits for one call's answer.
CALL_TIMEOUT = 150
PASSWD = File.join(FIXTURES, "passwd.properties")
ACCESS = File.join(FIXTURES, "access.properties")
SIMPLE_AUTH = "org.apache.cassandra.auth.SimpleAuthenticator".freeze

$LOAD_PATH.unshift File.join(REPO, "clients", "ruby", "lib")
require "cassandra"

module Thriftd
  def self.binary
    @binary ||= ENV["THRIFTD_BIN"].to_s.empty? ? build : ENV["THRIFTD_BIN"]
  end

  def self.build
    dir = Dir.mktmpdir("thriftd-rb-bin")
    at_exit { FileUtils.rm_rf(dir) }
    out = File.join(dir, "thriftd")
    system("go", "build", "-o", out, "./cmd/thriftd", chdir: REPO, exception: true)
    out
  end

  # A copy of fixture, written into dir, whose Authenticator is
  # authenticator (added after ClusterName when the fixture has none).
  def self.with_authenticator(dir, fixture, authenticator = SIMPLE_AUTH)
    text = File.read(fixture)
    element = "<Authenticator>#{authenticator}</Authenticator>"
    replaced = text.sub(%r{<Authenticator>[^<]*</Authenticator>}, element)
    replaced = text.sub("</ClusterName>", "</ClusterName>\n   #{element}") if replaced == text
    raise "could not set the authenticator in #{fixture}" unless replaced.include?(element)
    path = File.join(dir, "auth-#{File.basename(fixture)}")
    File.write(path, replaced)
    path
  end

  # One thriftd process; start waits for its "thriftd is serving" log line
  # and takes the address from it.
  class Node
    attr_reader :addr, :data, :config

    def initialize(config, data:, workdir:, extra: [])
      @config = config
      @data = data
      @workdir = workdir
      @extra = extra
      @logs = []
      @lock = Mutex.new
    end

    def host
      addr.rpartition(":").first
    end

    def port
      Integer(addr.rpartition(":").last)
    end

    def logs
      @lock.synchronize { @logs.join("\n") }
    end

    def start(timeout: 30)
      FileUtils.mkdir_p(@workdir)
      # No data directory when @extra names another store (-cassandra):
      # thriftd refuses -data beside it.
      data = @data ? ["-data", @data] : []
      args = [Thriftd.binary, "-config", @config, "-listen", "127.0.0.1:0", *data,
              "-log-format", "json", "-admin", "127.0.0.1:0", "-api", "0.6", *@extra]
      stdin, stderr, @wait = Open3.popen2e(*args, chdir: @workdir)
      stdin.close
      serving = Queue.new
      @reader = Thread.new do
        stderr.each_line do |line|
          @lock.synchronize { @logs << line.chomp }
          record = JSON.parse(line) rescue nil
          serving << record["listen"] if record.is_a?(Hash) && record["msg"] == "thriftd is serving"
        end
        serving << nil
      end
      @addr = Thread.new { serving.pop }.join(timeout)&.value
      unless @addr
        kill
        raise "thriftd did not serve (#{@config}):\n#{logs}"
      end
      self
    end

    # SIGTERM, then wait; returns the exit status.
    def stop(timeout: 30)
      return unless @wait&.alive?
      Process.kill("TERM", @wait.pid)
      unless @wait.join(timeout)
        kill
        raise "thriftd did not stop within #{timeout}s of SIGTERM"
      end
      @reader.join(5)
      @wait.value
    end

    def kill
      return unless @wait&.alive?
      Process.kill("KILL", @wait.pid)
      @wait.join
    end
  end
end

# A raw generated client and its transport.
RawClient = Struct.new(:client, :transport) do
  def method_missing(name, *args, &block)
    client.respond_to?(name) ? client.public_send(name, *args, &block) : super
  end

  def respond_to_missing?(name, include_private = false)
    client.respond_to?(name, include_private) || super
  end

  def close
    transport.close
  end
end

class ThriftdTest < Minitest::Test
  ONE = CassandraThrift::ConsistencyLevel::ONE

  def setup
    @tmp = Dir.mktmpdir("thriftd-rb")
    @nodes = []
    @closers = []
  end

  def teardown
    @closers.each { |c| c.call rescue nil }
    @nodes.each(&:stop)
    FileUtils.rm_rf(@tmp)
  end

  def start_node(config = TEST_CONF, extra: [], data: nil)
    n = @nodes.size + 1
    node = Thriftd::Node.new(config, data: data || File.join(@tmp, "data#{n}"),
                                     workdir: File.join(@tmp, "work#{n}"), extra: extra)
    @nodes << node
    node.start
  end

  def raw(node, framed: false)
    # A schema change on the Cassandra store waits for the nodes to agree,
    # up to thriftd's 2-minute bound: a call must be given longer than that
    # to get thriftd's own answer on a busy machine.
    socket = Thrift::Socket.new(node.host, node.port, CALL_TIMEOUT)
    transport = framed ? Thrift::FramedTransport.new(socket) : Thrift::BufferedTransport.new(socket)
    transport.open
    c = RawClient.new(CassandraThrift::Cassandra::Client.new(Thrift::BinaryProtocol.new(transport)), transport)
    @closers << -> { c.close }
    c
  end

  def cassandra(node, keyspace = "Keyspace1", **options)
    db = ::Cassandra.new(keyspace, node.addr, { timeout: 10 }.merge(options))
    @closers << -> { db.disconnect! }
    db
  end

  def i64(n)
    [n].pack("q>")
  end

  def assert_why(message, exception = CassandraThrift::InvalidRequestException)
    e = assert_raises(exception) { yield }
    assert_equal message, e.why
  end
end
