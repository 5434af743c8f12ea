package main

import "github.com/spf13/cobra"

func newTPStatsCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "tpstats",
		Short: "Print calls per Thrift method: active, completed, errors, mean latency",
		Long: `tpstats prints one line per Thrift method in nodetool tpstats' columns (Pool Name,
Active, Pending, Completed), then Errors and the mean latency in milliseconds since
thriftd started. thriftd runs each call on its connection's goroutine, so nothing is
ever pending.`,
		Args: o.args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := o.client.TPStats(cmd.Context())
			if err != nil {
				return err
			}
			return o.print(cmd).TPStats(v)
		},
	}
}
