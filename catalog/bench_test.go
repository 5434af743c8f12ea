package catalog

import (
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/schema"
)

// BenchmarkAddAndDropColumnFamily measures one system_add_column_family
// and one system_drop_column_family on the embedded store: each records
// the whole schema with a synced write.
func BenchmarkAddAndDropColumnFamily(b *testing.B) {
	file := fileSchema(b, "", "")
	n, err := openNode(b, b.TempDir(), file)
	if err != nil {
		b.Fatal(err)
	}
	defer n.close()
	for i := 0; i < 50; i++ { // a schema of some size
		cf := &schema.ColumnFamily{Keyspace: "Keyspace1", Name: fmt.Sprintf("Fixed%d", i), Comparator: bytesType(b), Options: schema.DefaultFamilyOptions()}
		if _, err := n.cat.AddColumnFamily(ctx, cf); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cf := &schema.ColumnFamily{Keyspace: "Keyspace1", Name: "Bench", Comparator: bytesType(b), Options: schema.DefaultFamilyOptions()}
		if _, err := n.cat.AddColumnFamily(ctx, cf); err != nil {
			b.Fatal(err)
		}
		if _, err := n.cat.DropColumnFamily(ctx, "Keyspace1", "Bench"); err != nil {
			b.Fatal(err)
		}
	}
}
