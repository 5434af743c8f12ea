package main

import "github.com/spf13/cobra"

func newClearSnapshotCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "clearsnapshot [NAME]",
		Short: "Remove one snapshot, or all of them",
		Long:  `clearsnapshot removes the snapshot NAME, or every snapshot when no name is given.`,
		Args:  o.args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			v, err := o.client.ClearSnapshot(cmd.Context(), name)
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}
