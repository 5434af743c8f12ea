package transfer

import (
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The columns Cassandra 3.11 lists in a super family's column_metadata
// for its own layout (as 3.11.19 described them) are left out of the
// definition copy creates on the target; declared columns are kept, and
// a standard family's are all kept.
func TestForTargetLeavesOut311SuperLayout(t *testing.T) {
	str := func(s string) *string { return &s }
	keys := cassandra19.IndexType_KEYS
	const m = "org.apache.cassandra.db.marshal."
	super := &cassandra19.CfDef{Name: "S", ColumnType: "Super", ComparatorType: m + "UTF8Type", SubcomparatorType: str(m + "LongType"),
		DefaultValidationClass: str(m + "AsciiType"), ID: new(int32),
		ColumnMetadata: []*cassandra19.ColumnDef{
			{Name: []byte{}, ValidationClass: m + "MapType(" + m + "LongType," + m + "AsciiType)"},
			{Name: []byte("value"), ValidationClass: m + "AsciiType"},
			{Name: []byte("declared"), ValidationClass: m + "LongType"},
		}}
	got := forTarget(super)
	if got.ID != nil || len(got.ColumnMetadata) != 1 || string(got.ColumnMetadata[0].Name) != "declared" {
		t.Errorf("super family: id %v, column_metadata %v", got.ID, got.ColumnMetadata)
	}
	if len(super.ColumnMetadata) != 3 {
		t.Errorf("the source's definition was changed: %v", super.ColumnMetadata)
	}
	// 1.2 and 2.1 list no such map: a "value" column is the client's.
	own := &cassandra19.CfDef{Name: "S", ColumnType: "Super", ComparatorType: "UTF8Type", SubcomparatorType: str("LongType"),
		ColumnMetadata: []*cassandra19.ColumnDef{{Name: []byte("value"), ValidationClass: "BytesType"}}}
	if got := forTarget(own); len(got.ColumnMetadata) != 1 {
		t.Errorf("a declared value column was left out: %v", got.ColumnMetadata)
	}
	// An indexed "value" beside the map is the client's too.
	indexed := *super
	indexed.ColumnMetadata = []*cassandra19.ColumnDef{super.ColumnMetadata[0], {Name: []byte("value"), ValidationClass: m + "AsciiType", IndexType: &keys}}
	if got := forTarget(&indexed); len(got.ColumnMetadata) != 1 || got.ColumnMetadata[0].IndexType == nil {
		t.Errorf("indexed value column: %v", got.ColumnMetadata)
	}
	standard := &cassandra19.CfDef{Name: "T", ColumnType: "Standard", ComparatorType: "UTF8Type",
		ColumnMetadata: []*cassandra19.ColumnDef{{Name: []byte("value"), ValidationClass: "BytesType"}}}
	if got := forTarget(standard); len(got.ColumnMetadata) != 1 {
		t.Errorf("standard family: %v", got.ColumnMetadata)
	}
}
