package main

import "github.com/spf13/cobra"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "thriftd-tool",
		Short:         "Operate servers that speak Cassandra 0.6's Thrift API",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(newExportCmd(), newImportCmd(), newCopyCmd())
	return root
}
