package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/transfer"
)

func newExportCmd() *cobra.Command {
	var f transferFlags
	var server, out string
	cmd := &cobra.Command{
		Use:   "export --server HOST:PORT --keyspace KS [--cf CF]... --out DIR",
		Short: "Write column families to 0.6 sstable2json files, one per column family",
		Long: `export reads every row of the chosen column families (all of the keyspace's by
default) from any server speaking Cassandra 0.6's Thrift API and writes
DIR/KS.CF.json in 0.6's sstable2json format. Only live data comes through the
API: every column is written with deleted=false and super columns with the
deletedAt of a super column never deleted.

The checkpoint defaults to DIR/KS.checkpoint.json; with --resume each file is
cut back to the last row the checkpoint recorded and continued.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := f.endpoint(server, f.username, f.passwordFile)
			if err != nil {
				return err
			}
			return runTransfer(cmd, &f, filepath.Join(out, f.keyspace+".checkpoint.json"), func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				return transfer.Export(stop, from, o, out)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&server, "server", "127.0.0.1:9160", "server to read from (HOST:PORT)")
	cmd.Flags().StringArrayVar(&f.cf, "cf", nil, "column family to export (repeat for several; default: all of the keyspace's)")
	cmd.Flags().StringVar(&out, "out", "", "directory for the files (required)")
	cmd.MarkFlagRequired("out")
	return cmd
}
