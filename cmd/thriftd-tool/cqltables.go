package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/engine/cqlstore"
)

// cqlTable is one line of cql-tables' report.
type cqlTable struct {
	Table      string   `json:"table"`
	Served     bool     `json:"served"`
	Shape      string   `json:"shape,omitempty"`
	Comparator string   `json:"comparator,omitempty"`
	Validator  string   `json:"default_validation_class,omitempty"`
	KeyType    string   `json:"key_validation_class,omitempty"`
	Columns    []string `json:"column_metadata,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

func newCQLTablesCmd(o *options) *cobra.Command {
	var hosts, user, passFile string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "cql-tables --cassandra HOST:PORT[,HOST:PORT...] KEYSPACE",
		Short: "Report which tables of a CQL keyspace thriftd can serve in place, and why not",
		Long: `cql-tables reads KEYSPACE's tables from the system_schema of a live Cassandra 3.11, 4 or 5
cluster (its CQL native port) and prints, for each, whether thriftd serves it in
place (thriftd -cassandra-adopt KEYSPACE), its shape and the column family a 19.x
client sees (a super column family's comparator / subcomparator), or the reason
it is not served. It changes nothing (docs/cassandra.md, "Serving existing CQL
tables in place").`,
		Args: o.args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if hosts == "" {
				o.usage = true
				return fmt.Errorf("--cassandra HOST:PORT is required")
			}
			cl := cqlstore.Cluster{Hosts: strings.Split(hosts, ","), Username: user, Timeout: timeout}
			if passFile != "" {
				raw, err := os.ReadFile(passFile)
				if err != nil {
					return fmt.Errorf("--password-file: %w", err)
				}
				cl.Password, _, _ = strings.Cut(string(raw), "\n")
				cl.Password = strings.TrimRight(cl.Password, "\r")
			}
			o.ran = true
			tables, err := cqlstore.Inspect(cmd.Context(), cl, args[0])
			if err != nil {
				return err
			}
			var out []cqlTable
			for _, t := range tables {
				r := cqlTable{Table: t.Name, Served: t.Servable(), Shape: t.Shape, Reason: t.Reason}
				if f := t.Family; f != nil {
					r.Comparator = f.Comparator.Name()
					if f.Super {
						r.Comparator += " / " + f.SubComparator.Name()
					}
					r.Validator, r.KeyType = f.DefaultValidator.Name(), f.KeyValidator.Name()
					for _, c := range f.Columns {
						r.Columns = append(r.Columns, string(c.Name)+"="+c.Validator.Name())
					}
				}
				out = append(out, r)
			}
			w := cmd.OutOrStdout()
			if o.json {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"keyspace": args[0], "tables": out})
			}
			tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "Table\tServed\tShape\tComparator\tReason")
			served := 0
			for _, r := range out {
				yes := "no"
				if r.Served {
					yes = "yes"
					served++
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Table, yes, dash(r.Shape), dash(strings.TrimPrefix(r.Comparator, "org.apache.cassandra.db.marshal.")), r.Reason)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "%d of %d tables of %s served in place\n", served, len(out), args[0])
			return err
		},
	}
	cmd.Flags().StringVar(&hosts, "cassandra", "", "contact points of the cluster, HOST:PORT[,HOST:PORT...] (CQL native port)")
	cmd.Flags().StringVar(&user, "username", "", "user to log in to Cassandra as")
	cmd.Flags().StringVar(&passFile, "password-file", "", "file whose first line is that user's password")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "how long one query to Cassandra may take")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
