// Command thriftd-tool is nodetool for thriftd: it runs info, ring,
// cfstats, tpstats, flush, compact, snapshot, clearsnapshot and drain
// against a node's admin endpoint (package admin) and prints the answers
// in nodetool 0.6's shapes or, with --json, as JSON (package
// admin/report). It also moves data through the Thrift API of any 0.6
// server: export, import and copy in 0.6's sstable2json format (package
// transfer), and reports which tables of a CQL keyspace thriftd serves in
// place (cql-tables). docs/thriftd-tool.md and docs/migration.md describe every
// command.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/admin/report"
	"github.com/thriftd/thriftd/settings"
	"github.com/thriftd/thriftd/transfer"
)

func main() {
	// export, import and copy catch SIGINT and SIGTERM themselves, to stop
	// at a row boundary; the other commands end at once, as nodetool did.
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns the exit status: 0 on success, 1
// when the command failed, 2 for a usage error, 130 when a transfer was
// interrupted. Errors are one line on
// stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := &options{}
	root := newRootCmd(o)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetContext(ctx)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if errors.Is(err, transfer.ErrInterrupted) {
		// The command has said where it stopped and how to resume.
		return 130
	}
	fmt.Fprintf(stderr, "thriftd-tool: %v\n", err)
	if o.usage || cmd == root && !o.ran {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return 2
	}
	return 1
}

// options are the root command's flags and what every command shares.
type options struct {
	admin, host, tokenFile string
	port                   int
	json                   bool
	// config is thriftd's configuration file, whose admin endpoint and
	// token file stand in for --admin and --token-file when not given.
	config string

	client  *admin.Client
	printer report.Printer
	ran     bool // a command started talking to the node
	usage   bool // the command line was wrong
}

func newRootCmd(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "thriftd-tool [flags] COMMAND",
		Short: "Inspect and manage a running thriftd, as nodetool did for Cassandra 0.6",
		Long: `thriftd-tool talks to thriftd's admin endpoint (thriftd -admin, 127.0.0.1:9161 by
default). nodetool's -h HOST and -p PORT are accepted: they replace the host and the
port of --admin. Every command prints nodetool 0.6's output, or JSON with --json.

With --config (or $THRIFTD_CONFIG) naming thriftd's thriftd.yaml or
storage-conf.xml, the admin endpoint is the file's admin.listen and the token
its admin.token_file; --admin and --token-file win over the file.

export, import and copy move data through the Thrift API of thriftd or any
Cassandra 0.6 server, in 0.6's sstable2json format (docs/migration.md); they
name their servers with their own flags and read no configuration file. With
--ssl (and --truststore, --keystore) they speak TLS to a Thrift port with
client_encryption_options, as thriftd-cli does; the admin endpoint is plain
HTTP.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	f := root.PersistentFlags()
	f.StringVar(&o.admin, "admin", admin.DefaultAddr, "HOST:PORT of thriftd's admin endpoint")
	f.StringVarP(&o.host, "host", "h", "", "host of the admin endpoint (nodetool's -h); replaces the host of --admin")
	f.IntVarP(&o.port, "port", "p", 0, "port of the admin endpoint (nodetool's -p); replaces the port of --admin")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token of thriftd's -admin-token-file")
	f.StringVar(&o.config, "config", "", "thriftd's configuration file (thriftd.yaml or storage-conf.xml) for the defaults of --admin and --token-file (default: $"+settings.ConfigEnv+")")
	f.BoolVar(&o.json, "json", false, "print JSON instead of nodetool's text")
	// -h is nodetool's host, so help is --help alone.
	f.Bool("help", false, "help for a command")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		o.usage = true
		return err
	})
	// Only the commands of the admin endpoint connect to it, and so read
	// the configuration file; a broken one does not stop export or help.
	for _, c := range append([]*cobra.Command{
		newInfoCmd(o), newRingCmd(o), newCFStatsCmd(o), newTPStatsCmd(o),
		newFlushCmd(o), newCompactCmd(o), newSnapshotCmd(o), newClearSnapshotCmd(o), newDrainCmd(o), newMigrationCmd(o),
	}, newRoleCmds(o)...) {
		c.PreRunE = func(cmd *cobra.Command, args []string) error { return o.connect(cmd) }
		root.AddCommand(c)
	}
	root.AddCommand(newExportCmd(), newImportCmd(), newCopyCmd(), newVerifyCmd(), newCQLTablesCmd(o))
	return root
}

// connect builds the client from the flags and, for what they leave
// unsaid, the configuration file: a flag wins over the file, which wins
// over the built-in default.
func (o *options) connect(cmd *cobra.Command) error {
	given := cmd.Flags().Changed
	addr, fromFile := o.admin, ""
	tokenFile, tokenFrom := o.tokenFile, "--token-file"
	config, configFrom := settings.ToolConfig(o.config, given("config"))
	if config != "" {
		fa, err := readConfig(config)
		if err != nil {
			return fmt.Errorf("%s: %w", configFrom, err)
		}
		if !given("admin") {
			if fa.addr == "" {
				return fmt.Errorf("%s is off: that thriftd has no admin endpoint (give --admin HOST:PORT to reach another)", fa.addrOrigin)
			}
			addr, fromFile = fa.addr, fa.addrOrigin
		}
		if !given("token-file") && fa.tokenFile != "" {
			tokenFile, tokenFrom = fa.tokenFile, fa.tokenOrigin
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		o.usage = true
		return fmt.Errorf("--admin %q: want HOST:PORT", addr)
	}
	if o.host != "" {
		host = o.host
	}
	if o.port != 0 {
		port = fmt.Sprint(o.port)
	}
	if fromFile != "" && port == "0" {
		return fmt.Errorf("%s %s: port 0 is any free port, known only to the running thriftd (give --admin HOST:PORT or -p PORT)", fromFile, addr)
	}
	c := &admin.Client{Addr: net.JoinHostPort(host, port)}
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return fmt.Errorf("%s: %w", tokenFrom, err)
		}
		c.Token = strings.TrimSpace(string(b))
	}
	o.client = c
	o.ran = true
	return nil
}

// print is the printer for cmd's output.
func (o *options) print(cmd *cobra.Command) report.Printer {
	return report.Printer{W: cmd.OutOrStdout(), JSON: o.json}
}

// args checks a command's arguments, marking a failure as a usage error.
func (o *options) args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			o.usage = true
			return err
		}
		return nil
	}
}
