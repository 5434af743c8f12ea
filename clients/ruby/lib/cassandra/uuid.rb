require "securerandom"

class Cassandra
  # A version 1 (time-based) UUID, as TimeUUIDType column names hold them.
  # UUIDs compare as TimeUUIDType orders them: by the 60-bit time, then by
  # all 16 bytes.
  class UUID
    include Comparable

    # 100-nanosecond intervals between 1582-10-15 (the UUID epoch) and the
    # Unix epoch.
    GREGORIAN_EPOCH_OFFSET = 0x01B2_1DD2_1381_4000

    @last_ticks = 0
    @lock = Mutex.new

    class << self
      # The clock of UUIDs made "now": strictly increasing within a process,
      # so that UUIDs made one after the other sort in that order.
      def next_ticks(ticks)
        @lock.synchronize do
          ticks = @last_ticks + 1 if ticks <= @last_ticks
          @last_ticks = ticks
        end
      end
    end

    # value:
    # * nil: a new UUID for the current time (random clock sequence and node);
    # * a Time (or Unix seconds as a Numeric): a UUID for that time; with
    #   opts[:lowest] (the default when opts[:random] is false) the smallest
    #   UUID of that 100-ns tick, with opts[:highest] the largest: use them
    #   as slice bounds to select a time range;
    # * 16 bytes, a 36-character UUID string, or a 128-bit Integer;
    # * another UUID.
    # opts[:random] (default true for nil and Times) fills the clock sequence
    # and node with random bits.
    def initialize(value = nil, opts = {})
      @bytes =
        case value
        when UUID then value.to_s
        when String then parse(value)
        when Integer then [value >> 64, value & 0xFFFF_FFFF_FFFF_FFFF].pack("Q>Q>")
        when nil then from_ticks(self.class.next_ticks(now_ticks), opts)
        when Time, Numeric then from_ticks(ticks_of(value), opts)
        else raise TypeError, "cannot make a Cassandra::UUID of #{value.class}"
        end
      @bytes.freeze
    end

    # The 16 bytes, as sent to the server.
    def to_s
      @bytes
    end

    # The canonical 8-4-4-4-12 hexadecimal form.
    def to_guid
      h = @bytes.unpack1("H*")
      [h[0, 8], h[8, 4], h[12, 4], h[16, 4], h[20, 12]].join("-")
    end

    def version
      @bytes.getbyte(6) >> 4
    end

    # The 60-bit time: 100-ns intervals since 1582-10-15.
    def ticks
      b = @bytes.bytes
      ((b[6] & 0x0F) << 56) | (b[7] << 48) | (b[4] << 40) | (b[5] << 32) |
        (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
    end

    # The time held by the UUID (meaningful for version 1 UUIDs).
    def to_time
      Time.at(Rational(ticks - GREGORIAN_EPOCH_OFFSET, 10_000_000))
    end

    def to_i
      hi, lo = @bytes.unpack("Q>Q>")
      (hi << 64) | lo
    end

    def <=>(other)
      return nil unless other.is_a?(UUID)
      c = ticks <=> other.ticks
      c.zero? ? to_s <=> other.to_s : c
    end

    def eql?(other)
      other.is_a?(UUID) && to_s == other.to_s
    end
    alias == eql?

    def hash
      @bytes.hash
    end

    def inspect
      "#<Cassandra::UUID #{to_guid}>"
    end

    private

    def parse(s)
      return s.b if s.bytesize == 16
      hex = s.delete("-")
      raise ArgumentError, "not a UUID: #{s.inspect}" unless hex.match?(/\A\h{32}\z/)
      [hex].pack("H*")
    end

    def now_ticks
      Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond) / 100 + GREGORIAN_EPOCH_OFFSET
    end

    def ticks_of(time)
      (time.to_r * 10_000_000).round + GREGORIAN_EPOCH_OFFSET
    end

    def from_ticks(ticks, opts)
      tail =
        if opts[:highest] then "\xFF".b * 8
        elsif opts[:lowest] || opts[:random] == false then "\x00".b * 8
        else
          t = SecureRandom.random_bytes(8)
          t.setbyte(0, (t.getbyte(0) & 0x3F) | 0x80) # RFC 4122 variant
          t
        end
      head = [ticks & 0xFFFF_FFFF, (ticks >> 32) & 0xFFFF, ((ticks >> 48) & 0x0FFF) | 0x1000].pack("Nnn")
      head + tail
    end
  end
end
