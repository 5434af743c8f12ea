package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/transfer"
)

func newVerifyCmd() *cobra.Command {
	var f transferFlags
	var from, to, toUser, toPassFile string
	var sample float64
	var toTLS tlsFlags
	cmd := &cobra.Command{
		Use:   "verify --from HOST:PORT --to HOST:PORT --keyspace KS [--cf CF]... [--sample FRACTION]",
		Short: "Compare a keyspace on two servers row by row, with the keys that differ",
		Long: `verify compares the chosen column families (all of the keyspace's by default)
on two servers of the 19.x or 20.x API: a Cassandra 0.7-3.11 origin and thriftd
(the target of a copy or of the migration proxy), or two thriftd. Every origin
row, or the fraction --sample of the keys (chosen by their hash, the same keys on
every run), is read from both and compared column by column: name, value,
timestamp, and whether the column expires (a copied column carries the TTL that
remained, so the TTL's value is not compared). Then every target row is checked
to exist on the origin.

It prints the rows compared and, per column family, the rows that differ, those
only on the origin and those only on the target, with up to 100 keys (hex) and
how each differs; it exits 1 when any row differs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := f.endpoint(from, f.username, f.passwordFile, &f.tls)
			if err != nil {
				return err
			}
			if toUser == "" {
				toUser, toPassFile = f.username, f.passwordFile
			}
			if !toTLS.given(cmd) {
				toTLS.ssl, toTLS.c = f.tls.ssl, f.tls.c
			}
			dst, err := f.endpoint(to, toUser, toPassFile, &toTLS)
			if err != nil {
				return err
			}
			log, err := f.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			o, err := f.options(log, "")
			if err != nil {
				return err
			}
			stop, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
			defer cancel()
			sum, err := transfer.Verify(stop, src, dst, o, sample)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.Encode(sum)
			} else {
				fmt.Fprintf(out, "keyspace %s, sample %v: %d rows differ (%v)\n", sum.Keyspace, sum.Sample, sum.Differences, sum.Elapsed.Round(1e6))
				for _, fs := range sum.Families {
					fmt.Fprintf(out, "  %s: %d rows (%d columns) compared, %d differ, %d only on the origin, %d only on the target\n",
						fs.Name, fs.Rows, fs.Columns, fs.Differ, fs.OnlyOrigin, fs.OnlyTarget)
					for _, k := range fs.Keys {
						fmt.Fprintf(out, "    %s\n", k)
					}
				}
			}
			if sum.Differences > 0 {
				cmd.SilenceUsage = true
				return fmt.Errorf("%d rows differ", sum.Differences)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&from, "from", "", "the origin (HOST:PORT, required)")
	cmd.Flags().StringVar(&to, "to", "", "the target (HOST:PORT, required)")
	cmd.Flags().StringVar(&toUser, "to-username", "", "user for the target when it differs from --username")
	cmd.Flags().StringVar(&toPassFile, "to-password-file", "", "password file for --to-username")
	cmd.Flags().Float64Var(&sample, "sample", 1, "fraction of the rows to compare, above 0 and at most 1")
	toTLS.register(cmd, "to-", "the target (its own TLS instead of --ssl's)")
	cmd.Flags().StringArrayVar(&f.cf, "cf", nil, "column family to compare (repeat for several; default: all of the keyspace's)")
	cmd.MarkFlagRequired("from")
	cmd.MarkFlagRequired("to")
	return cmd
}
