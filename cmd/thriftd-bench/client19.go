package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// dial19 opens a 19.x connection to addr.
func dial19(addr string) (*cassandra19.CassandraClient, thrift.TTransport, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 60 * time.Second}
	t := thrift.NewTFramedTransportConf(thrift.NewTSocketConf(addr, cfg), cfg)
	if err := t.Open(); err != nil {
		return nil, nil, err
	}
	return cassandra19.NewCassandraClientFactory(t, thrift.NewTBinaryProtocolFactoryConf(cfg)), t, nil
}

// describe19 returns the partitioner and API version a 19.x server
// reports.
func describe19(addr string) (partitioner, version string, err error) {
	c, t, err := dial19(addr)
	if err != nil {
		return "", "", err
	}
	defer t.Close()
	ctx := context.Background()
	if partitioner, err = c.DescribePartitioner(ctx); err != nil {
		return "", "", err
	}
	version, err = c.DescribeVersion(ctx)
	return partitioner, version, err
}

// ensureSchema19 makes sure keyspace ks with the benchmark's column
// families exists on the server at addr, creating what is missing through
// system_add_keyspace and system_add_column_family.
func ensureSchema19(addr, ks string) error {
	c, t, err := dial19(addr)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx := context.Background()
	counters := cfDef19(ks, "Counters", "BytesType")
	counters.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	indexed := cfDef19(ks, "Indexed", "BytesType")
	indexType := cassandra19.IndexType_KEYS
	indexed.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("idx"), ValidationClass: "BytesType",
		IndexType: &indexType, IndexName: thrift.StringPtr("Indexed_idx")}}
	families := []*cassandra19.CfDef{cfDef19(ks, "Standard1", "BytesType"), cfDef19(ks, "Standard2", "UTF8Type"), counters, indexed}
	def, err := c.DescribeKeyspace(ctx, ks)
	var nf *cassandra19.NotFoundException
	if errors.As(err, &nf) {
		rf := int32(1)
		_, err = c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
			StrategyOptions: map[string]string{"replication_factor": "1"}, ReplicationFactor: &rf, CfDefs: families, DurableWrites: true})
		if err != nil {
			return fmt.Errorf("system_add_keyspace %s: %w", ks, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("describe_keyspace %s: %w", ks, err)
	}
	for _, f := range families {
		found := false
		for _, d := range def.CfDefs {
			found = found || d.Name == f.Name
		}
		if !found {
			if err := c.SetKeyspace(ctx, ks); err != nil {
				return err
			}
			if _, err := c.SystemAddColumnFamily(ctx, f); err != nil {
				return fmt.Errorf("system_add_column_family %s.%s: %w", ks, f.Name, err)
			}
		}
	}
	return nil
}

// truncate19 empties column family cf of keyspace ks on the server at
// addr.
func truncate19(addr, ks, cf string) error {
	c, t, err := dial19(addr)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx := context.Background()
	if err := c.SetKeyspace(ctx, ks); err != nil {
		return err
	}
	if err := c.Truncate(ctx, cf); err != nil {
		return fmt.Errorf("truncate %s.%s: %w", ks, cf, err)
	}
	return nil
}

func cfDef19(ks, name, comparator string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name, d.ComparatorType = ks, name, comparator
	return d
}

// profileCPU starts a CPU profile of thriftd for d on its admin endpoint;
