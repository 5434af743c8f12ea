package main

import (
	"github.com/spf13/cobra"
)

func newMigrationCmd(o *options) *cobra.Command {
	var reads, writes string
	cmd := &cobra.Command{
		Use:   "migration [--reads origin|both|target] [--writes both|target]",
		Short: "Show or change the migration proxy's reads and writes",
		Long: `migration shows the migration proxy's origin, who answers reads, who takes
writes and how many writes wait in its durable log for thriftd's store; with
--reads or --writes it changes them for the calls that start from now on
(docs/migration.md). --reads target is the cutover, --reads origin goes back;
--writes target turns the origin's writes off (it needs reads target), after
which going back needs a copy.`,
		Args: o.args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reads == "" && writes == "" {
				s, err := o.client.Migration(cmd.Context())
				if err != nil {
					return err
				}
				return o.print(cmd).Migration(s)
			}
			s, err := o.client.SetMigration(cmd.Context(), reads, writes)
			if err != nil {
				return err
			}
			return o.print(cmd).Migration(s)
		},
	}
	cmd.Flags().StringVar(&reads, "reads", "", "who answers reads: origin, both (origin answers, thriftd's store compared) or target")
	cmd.Flags().StringVar(&writes, "writes", "", "who takes writes: both, or target (origin writes off)")
	return cmd
}
