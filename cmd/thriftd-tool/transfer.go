package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/tlsconf"
	"github.com/thriftd/thriftd/transfer"
)

// tlsFlags are --ssl and the stores of its certificates, as thriftd-cli
// names them; copy has a second set, prefixed to-, for its target.
type tlsFlags struct {
	prefix string // "" or "to-"
	ssl    bool
	c      tlsconf.Client
}

func (t *tlsFlags) register(cmd *cobra.Command, prefix, whose string) {
	t.prefix = prefix
	fs := cmd.Flags()
	fs.BoolVar(&t.ssl, prefix+"ssl", false, "connect to "+whose+" over TLS (a thriftd or Cassandra with client_encryption_options); its certificate is checked against --"+prefix+"truststore, else the system's authorities")
	fs.StringVar(&t.c.Truststore, prefix+"truststore", "", "with --"+prefix+"ssl, the authorities to trust: PEM certificates or a PKCS12 truststore `FILE`")
	fs.StringVar(&t.c.TruststorePassword, prefix+"truststore-password", "", "password of a PKCS12 --"+prefix+"truststore")
	fs.StringVar(&t.c.Keystore, prefix+"keystore", "", "with --"+prefix+"ssl, the client certificate and key to present (require_client_auth): a PEM or PKCS12 `FILE`")
	fs.StringVar(&t.c.KeystorePassword, prefix+"keystore-password", "", "password of a PKCS12 --"+prefix+"keystore")
}

// given reports whether any of the flags was on the command line.
func (t *tlsFlags) given(cmd *cobra.Command) bool {
	for _, n := range []string{"ssl", "truststore", "truststore-password", "keystore", "keystore-password"} {
		if cmd.Flags().Changed(t.prefix + n) {
			return true
		}
	}
	return false
}

// config reads the stores into the client's TLS configuration, or returns
// nil without --ssl. An error names the flag.
func (t *tlsFlags) config() (*tls.Config, error) {
	if !t.ssl {
		if t.c.Truststore != "" || t.c.Keystore != "" {
			return nil, fmt.Errorf("--%struststore and --%skeystore need --%sssl", t.prefix, t.prefix, t.prefix)
		}
		return nil, nil
	}
	cfg, err := tlsconf.ClientConfig(t.c)
	var te *tlsconf.Error
	if errors.As(err, &te) {
		return nil, fmt.Errorf("--%s%s: %v", t.prefix, strings.ReplaceAll(te.Setting, "_", "-"), te.Err)
	}
	return cfg, err
}

// transferFlags are the flags export, import and copy share.
type transferFlags struct {
	keyspace     string
	cf           []string
	framed       bool
	username     string
	passwordFile string
	timeout      time.Duration
	pageSize     int
	pageRows     int
	batchSize    int
	workers      int
	consistency  string
	checkpoint   string
	resume       bool
	progress     string
	interval     time.Duration
	output       string
	logLevel     string
	tls          tlsFlags
}

func (f *transferFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.keyspace, "keyspace", "", "keyspace to transfer (required)")
	fs.BoolVar(&f.framed, "framed", false, "use the framed transport (a 0.6 server with ThriftFramedTransport=true); thriftd accepts both")
	fs.StringVar(&f.username, "username", "", "log in as this user (SimpleAuthenticator) before any call")
	fs.StringVar(&f.passwordFile, "password-file", "", "file whose first line is the password for --username")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "longest wait for one call")
	fs.IntVar(&f.pageSize, "page-size", 1000, "most columns (or super columns) read from one row per call; wider rows are read on with get_slice")
	fs.IntVar(&f.pageRows, "page-rows", 100, "most rows per get_range_slices call")
	fs.IntVar(&f.batchSize, "batch-size", 500, "most columns (or deletions) per batch_mutate")
	fs.IntVar(&f.workers, "workers", 4, "batch_mutate calls in flight at once, one connection each (export: column families exported at once)")
	fs.StringVar(&f.consistency, "consistency", "ONE", "consistency level of every read and write (ONE, QUORUM, ALL, ...)")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint file: the last row completed per column family (default: see the command's help)")
	fs.BoolVar(&f.resume, "resume", false, "continue an interrupted run from its checkpoint")
	fs.StringVar(&f.progress, "progress", "auto", "auto (a bar when stderr is a terminal, else log lines), bar, log or off")
	fs.DurationVar(&f.interval, "progress-interval", 10*time.Second, "time between progress log lines")
	fs.StringVarP(&f.output, "output", "o", "text", "summary format: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	whose := "the server"
	if cmd.Name() == "copy" {
		whose = "the source (and the target, unless a --to-ssl flag is given)"
	}
	f.tls.register(cmd, "", whose)
	cmd.MarkFlagRequired("keyspace")
}

func readPassword(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimRight(line, "\r"), nil
}

// endpoint is addr with the connection flags and t's TLS.
func (f *transferFlags) endpoint(addr, username, passwordFile string, t *tlsFlags) (transfer.Endpoint, error) {
	if addr == "" {
		return transfer.Endpoint{}, errors.New("a server address (HOST:PORT) is required")
	}
	if !strings.Contains(addr, ":") {
		addr += ":9160"
	}
	pw, err := readPassword(passwordFile)
	if err != nil {
		return transfer.Endpoint{}, err
	}
	if passwordFile != "" && username == "" {
		return transfer.Endpoint{}, errors.New("--password-file needs --username")
	}
	tc, err := t.config()
	if err != nil {
		return transfer.Endpoint{}, err
	}
	return transfer.Endpoint{Addr: addr, Framed: f.framed, Username: username, Password: pw, Timeout: f.timeout, TLS: tc}, nil
}

// options builds the library's options from the flags.
func (f *transferFlags) options(log *slog.Logger, checkpoint string) (transfer.Options, error) {
	name := strings.ToUpper(f.consistency)
	// The 19.x API numbers its levels as 0.6 did where both have them;
	// its LOCAL_QUORUM and EACH_QUORUM take the places of 0.6's DCQUORUM
	// and DCQUORUMSYNC.
	switch name {
	case "LOCAL_QUORUM":
		name = "DCQUORUM"
	case "EACH_QUORUM":
		name = "DCQUORUMSYNC"
	}
	cl, err := cassandra.ConsistencyLevelFromString(name)
	if err != nil {
		return transfer.Options{}, fmt.Errorf("--consistency %q: not a consistency level", f.consistency)
	}
	if f.checkpoint != "" {
		checkpoint = f.checkpoint
	}
	switch f.output {
	case "text", "json":
	default:
		return transfer.Options{}, fmt.Errorf("--output %q: text or json", f.output)
	}
	switch f.progress {
	case "auto", "bar", "log", "off":
	default:
		return transfer.Options{}, fmt.Errorf("--progress %q: auto, bar, log or off", f.progress)
	}
	if f.interval <= 0 {
		return transfer.Options{}, fmt.Errorf("--progress-interval %v: must be positive", f.interval)
	}
	return transfer.Options{
		Keyspace: f.keyspace, ColumnFamilies: f.cf,
		PageSize: f.pageSize, PageRows: f.pageRows, BatchSize: f.batchSize, Workers: f.workers,
		Consistency: cl, Checkpoint: checkpoint, Resume: f.resume, Logger: log, Stats: &transfer.Stats{},
	}, nil
}

func (f *transferFlags) logger(w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: debug, info, warn or error", f.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runTransfer runs do with SIGINT and SIGTERM stopping it at a row
// boundary (a second signal ends the process at once), shows progress on
// stderr and prints the summary on stdout.
func runTransfer(cmd *cobra.Command, f *transferFlags, defaultCheckpoint string, do func(stop context.Context, o transfer.Options) (*transfer.Summary, error)) error {
	stderr := cmd.ErrOrStderr()
	log, err := f.logger(stderr)
	if err != nil {
		return err
	}
	// --json, which every thriftd-tool command takes, is -o json here.
	if j := cmd.Flag("json"); j != nil && j.Changed && j.Value.String() == "true" {
		f.output = "json"
	}
	o, err := f.options(log, defaultCheckpoint)
	if err != nil {
		return err
	}
	stop, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	// After the first signal, the next one gets the default action.
	onSignal := context.AfterFunc(stop, func() {
		cancel()
		log.Warn("stopping at the next row boundary; signal again to end at once")
	})

	mode := f.progress
	if mode == "auto" {
		mode = "log"
		if file, ok := stderr.(*os.File); ok && isTerminal(file) {
			mode = "bar"
		}
	}
	var rep *transfer.Reporter
	if mode != "off" {
		rep = transfer.Report(o.Stats, stderr, mode == "bar", log, f.interval)
	}
	sum, err := do(stop, o)
	onSignal()
	if rep != nil {
		rep.Stop()
	}
	if sum != nil && (err == nil || sum.Rows > 0 || sum.Interrupted) {
		if perr := printSummary(cmd.OutOrStdout(), f.output, sum, err); perr != nil && err == nil {
			err = perr
		}
	}
	_, cperr := os.Stat(o.Checkpoint)
	switch {
	case errors.Is(err, transfer.ErrInterrupted) && cperr != nil:
		fmt.Fprintf(stderr, "thriftd-tool: interrupted before anything was written; run the command again to start over.\n")
	case errors.Is(err, transfer.ErrInterrupted):
		fmt.Fprintf(stderr, "thriftd-tool: interrupted at a row boundary; everything before it is written and the checkpoint is in %s.\nResume with:\n  %s\n", o.Checkpoint, resumeCommand())
	case err != nil && cperr == nil && sum != nil && len(sum.Families) > 0:
		err = fmt.Errorf("%w\n(the checkpoint in %s records the rows completed; once the cause is fixed, resume with: %s)", err, o.Checkpoint, resumeCommand())
	}
	return err
}

// resumeCommand is this command line with --resume.
func resumeCommand() string {
	var parts []string
	has := false
	for _, a := range os.Args {
		if a == "--resume" || a == "--resume=true" {
			has = true
		}
		if a == "" || strings.ContainsAny(a, " \t\"'\\$`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	if !has {
		parts = append(parts, "--resume")
	}
	return strings.Join(parts, " ")
}

// printSummary prints what a transfer did, for people or as JSON.
func printSummary(w io.Writer, format string, s *transfer.Summary, runErr error) error {
	if format == "json" {
		out := struct {
			*transfer.Summary
			Error string `json:"error,omitempty"`
		}{Summary: s}
		if runErr != nil && !errors.Is(runErr, transfer.ErrInterrupted) {
			out.Error = runErr.Error()
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	secs := s.Elapsed.Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	state := "done"
	switch {
	case s.Interrupted:
		state = "interrupted"
	case runErr != nil:
		state = "failed"
	}
	fmt.Fprintf(w, "%s of keyspace %s %s in %s: %d rows, %d columns, %s (%.0f columns/s, %s/s)\n",
		s.Command, s.Keyspace, state, s.Elapsed.Round(time.Millisecond), s.Rows, s.Columns, humanBytes(float64(s.Bytes)), rate(s.Columns), humanBytes(rate(s.Bytes)))
	for _, f := range s.Families {
		line := fmt.Sprintf("  %-24s %10d rows %12d columns %10s", f.Name, f.Rows, f.Columns, humanBytes(float64(f.Bytes)))
		if f.File != "" {
			line += "  " + f.File
		}
		if f.Resumed {
			line += "  (resumed)"
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func humanBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
