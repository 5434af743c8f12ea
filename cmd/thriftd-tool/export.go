package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/transfer"
)

func newExportCmd() *cobra.Command {
	var f transferFlags
	var server, out, format string
	cmd := &cobra.Command{
		Use:   "export --server HOST:PORT --keyspace KS [--cf CF]... --out DIR",
		Short: "Write column families to sstable2json files (0.6's or 1.x's format), one per column family",
		Long: `export reads every row of the chosen column families (all of the keyspace's by
default) from any server speaking Cassandra 0.6's Thrift API and writes
DIR/KS.CF.json in 0.6's sstable2json format. Only live data comes through the
API: every column is written with deleted=false and super columns with the
deletedAt of a super column never deleted.

With --format 1.x the server is read through the 19.x API (thriftd, or
Cassandra 0.7 to 3.11) and the files are in the JSON of Cassandra 1.x's
sstable2json: hex keys, names and values as text of the family's types,
expiring columns with their TTL and an expiration time derived from their
timestamp. Column families are then exported one after the other, and a
resumed export writes the one it was in again.

The checkpoint defaults to DIR/KS.checkpoint.json; with --resume each file is
cut back to the last row the checkpoint recorded and continued.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := f.endpoint(server, f.username, f.passwordFile, &f.tls)
			if err != nil {
				return err
			}
			return runTransfer(cmd, &f, filepath.Join(out, f.keyspace+".checkpoint.json"), func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				switch format {
				case "0.6":
					return transfer.Export(stop, from, o, out)
				case "1.x":
					return transfer.Export12(stop, from, o, out)
				}
				return nil, fmt.Errorf("--format %q: 0.6 or 1.x", format)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&server, "server", "127.0.0.1:9160", "server to read from (HOST:PORT)")
	cmd.Flags().StringArrayVar(&f.cf, "cf", nil, "column family to export (repeat for several; default: all of the keyspace's)")
	cmd.Flags().StringVar(&out, "out", "", "directory for the files (required)")
	cmd.Flags().StringVar(&format, "format", "0.6", "the files' format: 0.6 (0.6's sstable2json, through the 0.6 API) or 1.x (1.x's sstable2json, through the 19.x API)")
	cmd.MarkFlagRequired("out")
	return cmd
}
