package main

import "github.com/spf13/cobra"

func newRingCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "ring",
		Short: "Print the ring: this one node, which owns every token",
		Long: `ring prints nodetool ring's table: Address, Status (Up, or Down once drained), Load,
Owns (100.00% on one node) and the node's token under Range.`,
		Args: o.args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := o.client.Ring(cmd.Context())
			if err != nil {
				return err
			}
			return o.print(cmd).Ring(v)
		},
	}
}
