// Command thriftd-cli is an interactive shell for Cassandra 0.6's Thrift
// API, speaking cassandra-cli 0.6's commands and printing its lines, with
// line editing, persistent history, tab completion and a batch mode for
// scripts. It works against thriftd or any Cassandra 0.6 server.
//
//	thriftd-cli --host 127.0.0.1 --port 9160
//	thriftd-cli --config /etc/thriftd/thriftd.yaml
//	thriftd-cli -e "set Keyspace1.Standard1['jsmith']['first'] = 'John'; get Keyspace1.Standard1['jsmith']"
//	thriftd-cli -f script.txt
//	thriftd-cli < script.txt
//
// docs/thriftd-cli.md describes every command, flag and the grammar.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thriftd/thriftd/cli"
	"github.com/thriftd/thriftd/cli/cli12"
	"github.com/thriftd/thriftd/settings"
	"github.com/thriftd/thriftd/tlsconf"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // a statement failed, or the server could not be reached
	exitUsage = 2 // bad command line
	// exitStatement12 ends a -f or -e script of --api 1.2 at its first
	// failing statement, as cassandra-cli 1.2 exits.
	exitStatement12 = 4
)

type options struct {
	cfg     cli.Config
	exec    string
	file    string
	history string
	output  string
	// api selects the grammar: "0.6" (cassandra-cli 0.6 over the 0.6 API)
	// or "1.2" (cassandra-cli 1.2 over the 19.x API, framed).
	api string
	// config is thriftd's configuration file (--config, else
	// $THRIFTD_CONFIG), whose listen address replaces the defaults of
	// --host and --port; configFrom names where it was given.
	config, configFrom string
	// ssl and tls are --ssl and the stores of its certificates.
	ssl bool
	tls tlsconf.Client
	// given holds the flags on the command line, which win over config.
	given map[string]bool
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("thriftd-cli", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.cfg.Host, "host", "127.0.0.1", "host of the Thrift server")
	fs.IntVar(&o.cfg.Port, "port", 9160, "Thrift port")
	fs.BoolVar(&o.cfg.Framed, "framed", false, "use the framed transport (ThriftFramedTransport servers)")
	fs.StringVar(&o.cfg.Keyspace, "keyspace", "", "default keyspace for paths that name none, and the keyspace to log in to")
	fs.StringVar(&o.cfg.Username, "username", "", "log in as this user (SimpleAuthenticator); needs --keyspace")
	fs.StringVar(&o.cfg.Password, "password", "", "password for --username (default: $THRIFTD_CLI_PASSWORD, which other users cannot see in ps)")
	fs.DurationVar(&o.cfg.Timeout, "timeout", 30*time.Second, "bound on connecting and on each call")
	fs.StringVar(&o.exec, "e", "", "run these statements (separated by ';') and exit")
	fs.StringVar(&o.file, "f", "", "run the statements of this file ('-' for standard input) and exit")
	fs.StringVar(&o.history, "history", defaultHistory(), "history file of the interactive shell ('' keeps none)")
	fs.StringVar(&o.output, "output", "human", "output form: human (cassandra-cli 0.6's lines) or json (one object per statement)")
	fs.StringVar(&o.api, "api", "0.6", "grammar and API: 0.6 (cassandra-cli 0.6 over the 0.6 API) or 1.2 (cassandra-cli 1.2 over the 19.x API, framed)")
	fs.BoolVar(&o.ssl, "ssl", false, "connect over TLS (a thriftd or Cassandra with client_encryption_options); the server's certificate is checked against --truststore, else the system's authorities")
	fs.StringVar(&o.tls.Truststore, "truststore", "", "with --ssl, the authorities to trust: PEM certificates or a PKCS12 truststore `FILE`")
	fs.StringVar(&o.tls.TruststorePassword, "truststore-password", "", "password of a PKCS12 --truststore")
	fs.StringVar(&o.tls.Keystore, "keystore", "", "with --ssl, the client certificate and key to present (require_client_auth): a PEM or PKCS12 `FILE`")
	fs.StringVar(&o.tls.KeystorePassword, "keystore-password", "", "password of a PKCS12 --keystore")
	fs.StringVar(&o.config, "config", "", "thriftd's configuration `FILE` (thriftd.yaml or storage-conf.xml): connect to its listen address unless --host or --port says otherwise (default: $"+settings.ConfigEnv+")")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: thriftd-cli [flags]                  interactive shell")
		fmt.Fprintln(stderr, "       thriftd-cli [flags] -e 'stmt; stmt'   run statements and exit")
		fmt.Fprintln(stderr, "       thriftd-cli [flags] -f FILE           run a file and exit (or pipe it on standard input)")
		fmt.Fprintln(stderr, "flags (written -flag or --flag):")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	o.config, o.configFrom = settings.ToolConfig(o.config, o.given["config"])
	if o.cfg.Password == "" {
		o.cfg.Password = os.Getenv("THRIFTD_CLI_PASSWORD")
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q (statements go in -e '...')", fs.Arg(0))
	case o.exec != "" && o.file != "":
		return o, errors.New("give -e or -f, not both")
	case o.api != "0.6" && o.api != "1.2":
		return o, fmt.Errorf("--api is 0.6 or 1.2, not %q", o.api)
	case o.api == "1.2" && o.output != "human":
		return o, errors.New("--output json is for --api 0.6; the 1.2 grammar prints cassandra-cli 1.2's lines")
	case o.output != "human" && o.output != "json":
		return o, fmt.Errorf("--output is human or json, not %q", o.output)
	case o.cfg.Port < 1 || o.cfg.Port > 65535:
		return o, fmt.Errorf("--port %d is not a port (1-65535)", o.cfg.Port)
	case o.cfg.Username != "" && o.cfg.Keyspace == "":
		return o, errors.New("--username needs --keyspace: 0.6 logs in to a keyspace")
	case !o.ssl && (o.tls.Truststore != "" || o.tls.Keystore != ""):
		return o, errors.New("--truststore and --keystore need --ssl")
	}
	if o.ssl {
		cfg, err := tlsconf.ClientConfig(o.tls)
		var te *tlsconf.Error
		if errors.As(err, &te) {
			return o, fmt.Errorf("--%s: %v", strings.ReplaceAll(te.Setting, "_", "-"), te.Err)
		}
		if err != nil {
			return o, err
		}
		o.cfg.TLS = cfg
	}
	return o, nil
}

// defaultHistory is ~/.thriftd_cli_history, or none without a home.
func defaultHistory() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".thriftd_cli_history")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "thriftd-cli:", err)
		return exitUsage
	}
	if err := applyConfig(&o); err != nil {
		fmt.Fprintf(stderr, "thriftd-cli: %s: %v\n", o.configFrom, err)
		return exitError
	}
	if o.api == "1.2" {
		return run12(o, stdin, stdout, stderr)
	}
	ctx := context.Background()
	var p cli.Printer = &cli.HumanPrinter{Out: stdout, Err: stderr}
	if o.output == "json" {
		p = &cli.JSONPrinter{Out: stdout, Err: stderr}
	}
	s := cli.NewSession(o.cfg, p)
	defer s.Close()

	script, batch, err := readScript(o, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "thriftd-cli:", err)
		return exitUsage
	}
	if batch {
		if cli.RunScript(ctx, s, script) != nil {
			return exitError
		}
		return exitOK
	}
	term := cli.Terminal{In: stdin, Out: stdout, ErrOut: stderr, HistoryFile: o.history}
	if err := cli.Interactive(ctx, s, term); err != nil {
		fmt.Fprintln(stderr, "thriftd-cli:", err)
		return exitError
	}
	return exitOK
}

// run12 runs the 1.2 grammar: a script of -e or -f stops at the first
// failing statement with exit status 4, as cassandra-cli 1.2's; a piped standard input runs as
// cassandra-cli 1.2 runs it (cli12.Piped), exit status 0; the interactive
// shell reads lines with cassandra-cli's prompt.
func run12(o options, stdin *os.File, stdout, stderr io.Writer) int {
	s := cli12.NewSession(cli12.Config{Host: o.cfg.Host, Port: o.cfg.Port, Keyspace: o.cfg.Keyspace,
		Username: o.cfg.Username, Password: o.cfg.Password, Timeout: o.cfg.Timeout, TLS: o.cfg.TLS}, stdout, stderr)
	defer s.Close()
	// A piped standard input is read as cassandra-cli 1.2 reads it, by its
	// shell, line by line as it arrives: prompts, each line echoed,
	// errors that do not stop it.
	piped := o.exec == "" && o.file == "" && !isTerminal(stdin)
	var script string
	batch := piped
	if !piped {
		var err error
		script, batch, err = readScript(o, stdin)
		if err != nil {
			fmt.Fprintln(stderr, "thriftd-cli:", err)
			return exitUsage
		}
	}
	if o.exec != "" {
		script = cli12.SplitInline(script)
	}
	// As cassandra-cli, connect at start: the first line of the output is
	// "Connected to: ...".
	if err := s.Connect(o.cfg.Host, o.cfg.Port); err != nil {
		fmt.Fprintln(stderr, err)
		if batch && !piped {
			return exitError
		}
	}
	switch {
	case piped:
		if err := cli12.Piped(s, stdin); err != nil {
			fmt.Fprintln(stderr, "thriftd-cli:", err)
			return exitError
		}
		return exitOK
	case batch:
		if cli12.RunScript(s, script) != nil {
			return exitStatement12
		}
		return exitOK
	}
	term := cli12.Terminal{In: stdin, Out: stdout, ErrOut: stderr, HistoryFile: o.history}
	if err := cli12.Interactive(s, term); err != nil {
		fmt.Fprintln(stderr, "thriftd-cli:", err)
		return exitError
	}
	return exitOK
}

// readScript returns the batch to run: -e, -f, or standard input when it
// is not a terminal. batch is false for the interactive shell.
func readScript(o options, stdin *os.File) (script string, batch bool, err error) {
	switch {
	case o.exec != "":
		return o.exec, true, nil
	case o.file == "-":
		b, err := io.ReadAll(stdin)
		return string(b), true, err
	case o.file != "":
		b, err := os.ReadFile(o.file)
		return string(b), true, err
	case !isTerminal(stdin):
		b, err := io.ReadAll(stdin)
		return string(b), true, err
	}
	return "", false, nil
}

// isTerminal reports whether f is a character device: a terminal (or
// /dev/null, where the shell simply meets the end of input).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
