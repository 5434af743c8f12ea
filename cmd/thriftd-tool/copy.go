package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/transfer"
)

func newCopyCmd() *cobra.Command {
	var f transferFlags
	var from, to, toUser, toPassFile, api string
	var toTLS tlsFlags
	cmd := &cobra.Command{
		Use:   "copy --from HOST:PORT --to HOST:PORT --keyspace KS [--cf CF]...",
		Short: "Copy column families from one server to another, with no intermediate file",
		Long: `copy reads every row of the chosen column families (all of the keyspace's by
default) from one server and writes them through batch_mutate to another,
keeping every timestamp. Deletions do not come through the API and are not
copied.

A source that answers the 19.x or 20.x API (Cassandra 0.7 to 3.11, or thriftd)
is read through it: the keyspace and column families the target lacks are
created from the source's definitions, and expiring columns keep the TTL that
remains. Counters are copied idempotently: each gets the difference between the
source's total and the target's, so --resume or a second run ends with the
source's totals. A 0.6 source is read through
0.6's API; the target's column families must then exist with the same type and
comparators.

--ssl and its stores apply to both servers; any --to-ssl flag gives the target
its own (--to-ssl=false: plain Thrift to the target).

The checkpoint defaults to thriftd-tool-copy-KS.checkpoint.json in the current
directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := f.endpoint(from, f.username, f.passwordFile, &f.tls)
			if err != nil {
				return err
			}
			if toUser == "" {
				toUser, toPassFile = f.username, f.passwordFile
			}
			if !toTLS.given(cmd) {
				toTLS.ssl, toTLS.c = f.tls.ssl, f.tls.c
			}
			dst, err := f.endpoint(to, toUser, toPassFile, &toTLS)
			if err != nil {
				return err
			}
			return runTransfer(cmd, &f, "thriftd-tool-copy-"+f.keyspace+".checkpoint.json", func(stop context.Context, o transfer.Options) (*transfer.Summary, error) {
				o.SourceAPI = api
				return transfer.Copy(stop, src, dst, o)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&from, "from", "", "server to read from (HOST:PORT, required)")
	cmd.Flags().StringVar(&to, "to", "", "server to write to (HOST:PORT, required)")
	cmd.Flags().StringVar(&toUser, "to-username", "", "user for the target when it differs from --username")
	cmd.Flags().StringVar(&toPassFile, "to-password-file", "", "password file for --to-username")
	toTLS.register(cmd, "to-", "the target (its own TLS instead of --ssl's)")
	cmd.Flags().StringVar(&api, "api", "auto", "API to read the source through: 0.6, 19 (0.7 to 3.11, and thriftd), or auto (19 when the source answers it)")
	cmd.Flags().StringArrayVar(&f.cf, "cf", nil, "column family to copy (repeat for several; default: all of the keyspace's)")
	cmd.MarkFlagRequired("from")
	cmd.MarkFlagRequired("to")
	return cmd
}
