// Command thriftd-tool is the operator's tool for servers that speak
// Cassandra 0.6's Thrift API: export, import and copy of a keyspace's data
// in 0.6's sstable2json format.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/thriftd/thriftd/transfer"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		if !errors.Is(err, transfer.ErrInterrupted) {
			fmt.Fprintln(os.Stderr, "thriftd-tool:", err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCode is 130 (as for a shell's Ctrl-C) after an interruption, 1 for
// any other failure.
func exitCode(err error) int {
	if errors.Is(err, transfer.ErrInterrupted) {
		return 130
	}
	return 1
}
