package main

import (
	"strings"

	"github.com/spf13/cobra"
)

func newCFStatsCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "cfstats [KEYSPACE[.CF]]",
		Short: "Print read and write counts, latencies and disk space per column family",
		Long: `cfstats prints nodetool cfstats' report for every keyspace, one keyspace, or one
column family (KEYSPACE.CF): per keyspace the reads and writes and their mean latency,
per column family its SSTable count (LevelDB tables, shared by every column family),
disk space (LevelDB's estimate for its keys) and its reads and writes since thriftd
started. Latencies are NaN until something was counted, as in 0.6.`,
		Args: o.args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ks, cf string
			if len(args) == 1 {
				ks, cf, _ = strings.Cut(args[0], ".")
			}
			v, err := o.client.CFStats(cmd.Context(), ks, cf)
			if err != nil {
				return err
			}
			return o.print(cmd).CFStats(v)
		},
	}
}
