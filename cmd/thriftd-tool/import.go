package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/sstablejson"
	"github.com/thriftd/thriftd/transfer"
)

func newImportCmd() *cobra.Command {
	var f transferFlags
	var server, cf, keys, format string
	var noPrecheck bool
	cmd := &cobra.Command{
		Use:   "import --server HOST:PORT --keyspace KS --cf CF FILE",
		Short: "Write an sstable2json file (0.6's or 1.x's format) into a column family",
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

A file in the JSON of Cassandra 1.x's sstable2json (an array of rows with
"key" and "columns"; --format 1.x, or auto: a file that begins with '[') is
written through the 19.x API: names and values are read with the column
family's types, tombstones and row and super column deletions become
deletions, expiring columns keep the TTL left until their expiration time
(those past it are skipped), and counter cells are refused.

The checkpoint defaults to FILE.checkpoint.json.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := f.endpoint(server, f.username, f.passwordFile, &f.tls)
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
			is12 := format == "1.x"
			switch format {
			case "auto":
				fh, err := os.Open(file)
				if err != nil {
					return err
				}
				is12, err = sstablejson.Is12(fh)
				fh.Close()
				if err != nil {
					return err
				}
			case "0.6", "1.x":
			default:
				return fmt.Errorf("--format %q: auto, 0.6 or 1.x", format)
			}
			if is12 {
				return runTransfer(cmd, &f, file+".checkpoint.json", func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
					return transfer.Import12(stop, to, o, file)
				})
			}
			return runTransfer(cmd, &f, file+".checkpoint.json", func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				return transfer.Import(stop, to, o, file, transfer.ImportOptions{Keys: mode, NoPrecheck: noPrecheck})
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&server, "server", "127.0.0.1:9160", "server to write to (HOST:PORT)")
	cmd.Flags().StringVar(&cf, "cf", "", "column family to write (required)")
	cmd.Flags().StringVar(&keys, "keys", "auto", "row keys: auto (JSON where valid, else 0.6's unescaped text) or raw (always 0.6's unescaped text: backslashes are part of the key)")
	cmd.Flags().StringVar(&format, "format", "auto", "the file's format: 0.6 (0.6's sstable2json), 1.x (1.x's sstable2json), or auto (1.x when the file begins with '[')")
	cmd.Flags().BoolVar(&noPrecheck, "no-precheck", false, "write while reading, without checking the whole file first")
	cmd.MarkFlagRequired("cf")
	// An import reads a file, not a server.
	cmd.Flags().MarkHidden("page-size")
	cmd.Flags().MarkHidden("page-rows")
	return cmd
}
