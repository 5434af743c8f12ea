package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/sstablejson"
	"github.com/thriftd/thriftd/transfer"
)

func newImportCmd() *cobra.Command {
	var f transferFlags
	var server, cf, keys string
	var noPrecheck bool
	cmd := &cobra.Command{
		Use:   "import --server HOST:PORT --keyspace KS --cf CF FILE",
		Short: "Write a 0.6 sstable2json file into a column family",
		Long: `import reads FILE, in 0.6's sstable2json format (written by 0.6's sstable2json
or by export), as a stream and writes its rows through batch_mutate into
column family CF of any server speaking Cassandra 0.6's Thrift API, keeping
every timestamp. Deleted columns and super columns' deletedAt become
deletions with their timestamps.

The whole file is first read once and checked (hex, structure, names against
the column family's comparators), so a file with a fault writes nothing;
--no-precheck writes as it reads. 0.6 printed row keys unescaped: a key
holding a quote is read where its line can be read only one way, and refused
with its line and column otherwise.

The checkpoint defaults to FILE.checkpoint.json.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := f.endpoint(server, f.username, f.passwordFile)
			if err != nil {
				return err
			}
			var mode sstablejson.KeyMode
			switch keys {
			case "auto":
				mode = sstablejson.KeysAuto
			case "raw":
				mode = sstablejson.KeysRaw
			default:
				return fmt.Errorf("--keys %q: auto or raw", keys)
			}
			f.cf = []string{cf}
			file := args[0]
			return runTransfer(cmd, &f, file+".checkpoint.json", func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				return transfer.Import(stop, to, o, file, transfer.ImportOptions{Keys: mode, NoPrecheck: noPrecheck})
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&server, "server", "127.0.0.1:9160", "server to write to (HOST:PORT)")
	cmd.Flags().StringVar(&cf, "cf", "", "column family to write (required)")
	cmd.Flags().StringVar(&keys, "keys", "auto", "row keys: auto (JSON where valid, else 0.6's unescaped text) or raw (always 0.6's unescaped text: backslashes are part of the key)")
	cmd.Flags().BoolVar(&noPrecheck, "no-precheck", false, "write while reading, without checking the whole file first")
	cmd.MarkFlagRequired("cf")
	// An import reads a file, not a server.
	cmd.Flags().MarkHidden("page-size")
	cmd.Flags().MarkHidden("page-rows")
	return cmd
}
