package main

import "github.com/spf13/cobra"

func newFlushCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "flush [KEYSPACE [CF...]]",
		Short: "Write the memtable out to a table file",
		Long: `flush writes LevelDB's memtable out as a table (nodetool flush). Every column family
shares the one memtable, so a keyspace or column families given, as nodetool took
them, flush it all; a name the schema does not have is an error and nothing is
flushed. Acknowledged writes are durable without a flush; it shortens the journal
replayed at the next start.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var ks string
			var cfs []string
			if len(args) > 0 {
				ks, cfs = args[0], args[1:]
			}
			v, err := o.client.Flush(cmd.Context(), ks, cfs...)
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}
