class Cassandra
  # A LongType column name: a signed 64-bit integer held as 8 big-endian
  # bytes. Longs compare by their integer value, so negative names sort
  # before positive ones, as LongType orders them.
  class Long
    include Comparable

    # value: an Integer (-2**63 ... 2**63-1), the 8 bytes of a name, another
    # Long, or nil for the current time in microseconds.
    def initialize(value = nil)
      @bytes =
        case value
        when Long then value.to_s
        when Integer
          raise RangeError, "#{value} does not fit a signed 64-bit long" unless value.bit_length < 64
          [value].pack("q>")
        when String
          raise ArgumentError, "a long is exactly 8 bytes, not #{value.bytesize}" unless value.bytesize == 8
          value.b
        when nil then [Cassandra.timestamp].pack("q>")
        else raise TypeError, "cannot make a Cassandra::Long of #{value.class}"
        end
      @bytes.freeze
    end

    # The 8 bytes, as sent to the server.
    def to_s
      @bytes
    end

    def to_i
      @bytes.unpack1("q>")
    end

    def <=>(other)
      other.is_a?(Long) ? to_i <=> other.to_i : nil
    end

    def eql?(other)
      other.is_a?(Long) && to_s == other.to_s
    end
    alias == eql?

    def hash
      @bytes.hash
    end

    def inspect
      "#<Cassandra::Long #{to_i}>"
    end
  end
end
