package main

import "github.com/spf13/cobra"

func newInfoCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "Print the node's token, load, generation, uptime and heap",
		Long: `info prints what nodetool info printed: the node's ring token, then Load (the size
of the store's files), Generation No (when thriftd started, in Unix seconds), Uptime
(seconds) and Heap Memory (MB) as used / obtained from the operating system.`,
		Args: o.args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := o.client.Info(cmd.Context())
			if err != nil {
				return err
			}
			return o.print(cmd).Info(v)
		},
	}
}
