package main

import "github.com/spf13/cobra"

func newDrainCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "drain",
		Short: "Stop serving Thrift clients, finish the calls in flight, flush",
		Long: `drain prepares thriftd to be stopped, as nodetool drain did: it closes the Thrift
port, closes idle connections, lets the calls in flight finish and answer, then
flushes the memtable. thriftd then serves only its admin endpoint (ring shows it
Down) until it is stopped with SIGTERM; the next start replays no journal.`,
		Args: o.args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := o.client.Drain(cmd.Context())
			if err != nil {
				return err
			}
			return o.print(cmd).Done(v)
		},
	}
}
