// Command cqlprefix empties or drops the CQL keyspaces of a thriftd
// keyspace prefix on a test cluster, for test harnesses not written in Go
// (test/python/support.py). It runs internal/testenv's TruncatePrefix and
// DropPrefix.
//
//	cqlprefix truncate HOST:PORT[,...] PREFIX
//	cqlprefix drop HOST:PORT[,...] PREFIX
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

func main() {
	if len(os.Args) != 4 || (os.Args[1] != "truncate" && os.Args[1] != "drop") {
		fmt.Fprintln(os.Stderr, "usage: cqlprefix truncate|drop HOST:PORT[,HOST:PORT...] PREFIX")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	points, prefix := os.Args[2], os.Args[3]
	var err error
	if os.Args[1] == "truncate" {
		err = testenv.TruncatePrefix(ctx, points, prefix)
	} else {
		_, err = testenv.DropPrefix(ctx, points, prefix)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cqlprefix %s %s: %v\n", os.Args[1], prefix, err)
		os.Exit(1)
	}
}
