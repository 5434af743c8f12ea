class Cassandra
  # Conversions between Ruby values and column names or Thrift structs, by
  # the comparators of the keyspace's schema. Mixed into Cassandra.
  module Columns
    MARSHAL = "org.apache.cassandra.db.marshal.".freeze
    UUID_TYPES = %w[TimeUUIDType LexicalUUIDType].freeze

    private

    def column_family_schema(column_family)
      schema[column_family.to_s] or raise AccessError, "Invalid column family \"#{column_family}\""
    end

    def super?(column_family)
      column_family_schema(column_family)["Type"] == "Super"
    end

    def comparator(column_family, sub = false)
      cf = column_family_schema(column_family)
      name = sub ? cf["CompareSubcolumnsWith"] : cf["CompareWith"]
      (name || "BytesType").delete_prefix(MARSHAL)
    end

    # The bytes of a column name. bound is :low or :high when the name is a
    # slice bound given as a Time for a TimeUUIDType comparator.
    def to_name(value, comparator, bound = nil)
      case value
      when nil then ""
      when Long, UUID then value.to_s
      when Integer
        raise ArgumentError, "an Integer is a LongType name, not a #{comparator} one" unless comparator == "LongType"
        Long.new(value).to_s
      when Time
        raise ArgumentError, "a Time is a TimeUUIDType bound, not a #{comparator} name" unless comparator == "TimeUUIDType" && bound
        UUID.new(value, bound == :low ? { lowest: true } : { highest: true }).to_s
      when Symbol then value.to_s.b
      when String
        if UUID_TYPES.include?(comparator) && value.bytesize == 36
          UUID.new(value).to_s
        else
          value.b
        end
      else raise TypeError, "cannot use a #{value.class} as a column name"
      end
    end

    # The Ruby value of a column name read from the server.
    def from_name(bytes, comparator)
      case comparator
      when "LongType" then bytes.bytesize == 8 ? Long.new(bytes) : bytes
      when *UUID_TYPES then bytes.bytesize == 16 ? UUID.new(bytes) : bytes
      when "UTF8Type" then bytes.dup.force_encoding(Encoding::UTF_8)
      else bytes
      end
    end

    # A Hash of name => value (or super column name => Hash) from a list of
    # ColumnOrSuperColumn.
    def columns_to_hash(column_family, list, sub)
      list.each_with_object({}) do |cosc, hash|
        if (sc = cosc.super_column)
          inner = {}
          sc.columns.each { |c| inner[from_name(c.name, comparator(column_family, true))] = c.value }
          hash[from_name(sc.name, comparator(column_family))] = inner
        elsif (c = cosc.column)
          hash[from_name(c.name, comparator(column_family, sub))] = c.value
        end
      end
    end

    def slice_predicate(column_family, sub, options)
      cmp = comparator(column_family, sub)
      if options[:columns]
        return CassandraThrift::SlicePredicate.new(column_names: Array(options[:columns]).map { |n| to_name(n, cmp) })
      end
      low, high = options[:reversed] ? %i[high low] : %i[low high]
      range = CassandraThrift::SliceRange.new(
        start: to_name(options[:start], cmp, low),
        finish: to_name(options[:finish], cmp, high),
        reversed: options[:reversed] ? true : false,
        count: options[:count]
      )
      CassandraThrift::SlicePredicate.new(slice_range: range)
    end

    def column(name, value, timestamp, comparator)
      CassandraThrift::Column.new(name: to_name(name, comparator), value: value.to_s, timestamp: timestamp)
    end

    # Mutations writing hash (name => value, or super column => Hash).
    def insert_mutations(column_family, hash, timestamp)
      hash.map do |name, value|
        cosc =
          if super?(column_family)
            raise ArgumentError, "a super column family takes a Hash of Hashes" unless value.is_a?(Hash)
            sub = value.map { |n, v| column(n, v, timestamp, comparator(column_family, true)) }
            sc = CassandraThrift::SuperColumn.new(name: to_name(name, comparator(column_family)), columns: sub)
            CassandraThrift::ColumnOrSuperColumn.new(super_column: sc)
          else
            CassandraThrift::ColumnOrSuperColumn.new(column: column(name, value, timestamp, comparator(column_family)))
          end
        CassandraThrift::Mutation.new(column_or_supercolumn: cosc)
      end
    end

    # The Deletion removing a row, a column, a super column or a subcolumn.
    def deletion(column_family, column, sub_column, timestamp)
      d = CassandraThrift::Deletion.new(timestamp: timestamp)
      if super?(column_family)
        d.super_column = to_name(column, comparator(column_family)) if column
        name = sub_column && to_name(sub_column, comparator(column_family, true))
      else
        raise ArgumentError, "a standard column family has no subcolumns" if sub_column
        name = column && to_name(column, comparator(column_family))
      end
      d.predicate = CassandraThrift::SlicePredicate.new(column_names: [name]) if name
      CassandraThrift::Mutation.new(deletion: d)
    end
  end
end
