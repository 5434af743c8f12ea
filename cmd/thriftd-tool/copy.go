package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/transfer"
)

func newCopyCmd() *cobra.Command {
	var f transferFlags
	var from, to, toUser, toPassFile string
	cmd := &cobra.Command{
		Use:   "copy --from HOST:PORT --to HOST:PORT --keyspace KS [--cf CF]...",
		Short: "Copy column families from one server to another, with no intermediate file",
		Long: `copy reads every row of the chosen column families (all of the keyspace's by
default) from one server speaking Cassandra 0.6's Thrift API and writes them
through batch_mutate to another, keeping every timestamp. The target's column
families must exist with the same type and comparators. Deletions do not come
through the API and are not copied.

The checkpoint defaults to thriftd-tool-copy-KS.checkpoint.json in the current
directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := f.endpoint(from, f.username, f.passwordFile)
			if err != nil {
				return err
			}
			if toUser == "" {
				toUser, toPassFile = f.username, f.passwordFile
			}
			dst, err := f.endpoint(to, toUser, toPassFile)
			if err != nil {
				return err
			}
			return runTransfer(cmd, &f, "thriftd-tool-copy-"+f.keyspace+".checkpoint.json", func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				return transfer.Copy(stop, src, dst, o)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&from, "from", "", "server to read from (HOST:PORT, required)")
	cmd.Flags().StringVar(&to, "to", "", "server to write to (HOST:PORT, required)")
	cmd.Flags().StringVar(&toUser, "to-username", "", "user for the target when it differs from --username")
	cmd.Flags().StringVar(&toPassFile, "to-password-file", "", "password file for --to-username")
	cmd.Flags().StringArrayVar(&f.cf, "cf", nil, "column family to copy (repeat for several; default: all of the keyspace's)")
	cmd.MarkFlagRequired("from")
	cmd.MarkFlagRequired("to")
	return cmd
}
