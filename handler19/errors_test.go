package handler19

import (
	"errors"
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// A store's refusal of a column family whose table went away under it is
// the real server's answer for an unknown column family.
func TestUnknownColumnFamilyIsInvalidRequest(t *testing.T) {
	err := fmt.Errorf("cassandra: read: %w", &engine.UnknownColumnFamilyError{Name: "old"})
	got, ok := toThrift(err)
	var ire *cassandra19.InvalidRequestException
	if !ok || !errors.As(got, &ire) || ire.Why != "unconfigured columnfamily old" {
		t.Fatalf("toThrift: %v, %v", got, ok)
	}
}
