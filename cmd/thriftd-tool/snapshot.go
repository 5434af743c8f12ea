package main

import "github.com/spf13/cobra"

func newSnapshotCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "snapshot [NAME]",
		Short: "Take a consistent copy of the store under <data dir>/snapshots/NAME",
		Long: `snapshot copies the store as it is at one instant into <data dir>/snapshots/NAME
(NAME defaults to the time in milliseconds, as 0.6 named snapshots): hard links to
the table files and copies of the manifest and journals, taken while calls are held
back for a moment. thriftd keeps serving. docs/thriftd-tool.md gives the restore
procedure.`,
		Args: o.args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			v, err := o.client.Snapshot(cmd.Context(), name)
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}
