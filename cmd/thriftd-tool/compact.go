package main

import "github.com/spf13/cobra"

func newCompactCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "compact [KEYSPACE [CF]]",
		Short: "Compact the store, a keyspace or a column family",
		Long: `compact runs LevelDB's CompactRange over the whole store, the column families of
KEYSPACE, or the one column family CF (nodetool compact). It waits until the
compaction is done. Reads and writes go on meanwhile.`,
		Args: o.args(cobra.MaximumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ks, cf string
			if len(args) > 0 {
				ks = args[0]
			}
			if len(args) > 1 {
				cf = args[1]
			}
			v, err := o.client.Compact(cmd.Context(), ks, cf)
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}
