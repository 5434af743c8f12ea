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
			if err := checkNames(cmd, o, args); err != nil {
				return err
			}
			v, err := o.client.Flush(cmd.Context())
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}

// checkNames fails, with the node's "unknown keyspace" or "unknown column
// family" message, unless args (KEYSPACE, then column families) name what
// the node's schema holds. The flush endpoint takes no names, so cfstats,
// which checks them, is asked.
func checkNames(cmd *cobra.Command, o *options, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if len(args) == 1 {
		_, err := o.client.CFStats(cmd.Context(), args[0], "")
		return err
	}
	for _, cf := range args[1:] {
		if _, err := o.client.CFStats(cmd.Context(), args[0], cf); err != nil {
			return err
		}
	}
	return nil
}
