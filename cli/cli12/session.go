// Package cli12 is thriftd-cli's 1.2 grammar: cassandra-cli 1.2's
// statements over the 19.x Thrift API (framed), printing the lines the
// real cassandra-cli 1.2.19 prints, so its scripts and their output carry
// over. cmd/thriftd-cli selects it with --api 1.2.
package cli12

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/ergochat/readline"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Config is where a Session connects.
type Config struct {
	Host     string
	Port     int
	Keyspace string
	Username string
	Password string
	Timeout  time.Duration
	// TLS, when set, makes the connection speak TLS with this
	// configuration.
	TLS *tls.Config
}

// ErrQuit ends a script or the shell (quit, exit).
var ErrQuit = errors.New("quit")

// Session is one shell: its connection, current keyspace, consistency
// level, assumptions and cached schema.
type Session struct {
	cfg      Config
	out, err io.Writer
	ctx      context.Context

	trans    thrift.TTransport
	client   *cassandra19.CassandraClient
	host     string
	port     int
	keyspace string
	username string
	cl       cassandra19.ConsistencyLevel
	ksCache  map[string]*cassandra19.KsDef
	keyTypes map[string]string // assumed key types by column family
	// assumed holds assume's comparator, subcomparator and validator by
	// keyspace and column family: a definition read from the server
	// again (ksDef) gets them back, as cassandra-cli 1.2's does.
	assumed map[cfKey][]assumption
}

type cfKey struct{ keyspace, cf string }

// assumption is one assume statement's element (COMPARATOR,
// SUB_COMPARATOR or VALIDATOR) and type.
type assumption struct{ element, class string }

// NewSession returns a session writing results to out and messages to errOut.
func NewSession(cfg Config, out, errOut io.Writer) *Session {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Port == 0 {
		cfg.Port = 9160
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Session{cfg: cfg, out: out, err: errOut, ctx: context.Background(),
		cl: cassandra19.ConsistencyLevel_ONE, ksCache: map[string]*cassandra19.KsDef{}, keyTypes: map[string]string{},
		assumed: map[cfKey][]assumption{}}
}

// Close closes the connection.
func (s *Session) Close() {
	if s.trans != nil {
		s.trans.Close()
		s.trans, s.client = nil, nil
	}
}

// Connect opens the connection and prints cassandra-cli's line
// "Connected to: "NAME" on HOST/PORT". With a keyspace in the
// configuration it uses it first, silently, as cassandra-cli -k does:
// when that fails it prints why instead of the line, and stays connected.
func (s *Session) Connect(host string, port int) error {
	s.Close()
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	conf := &thrift.TConfiguration{ConnectTimeout: s.cfg.Timeout, SocketTimeout: s.cfg.Timeout}
	var sock thrift.TTransport = thrift.NewTSocketConf(addr, conf)
	if s.cfg.TLS != nil {
		conf.TLSConfig = s.cfg.TLS
		sock = thrift.NewTSSLSocketConf(addr, conf)
	}
	trans := thrift.NewTFramedTransportConf(sock, conf)
	if err := trans.Open(); err != nil {
		return fmt.Errorf("Exception connecting to %s/%d. Reason: %v.", host, port, err)
	}
	s.trans = trans
	s.client = cassandra19.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(conf))
	s.host, s.port = host, port
	s.keyspace, s.username = "", ""
	if s.cfg.Keyspace != "" {
		if err := s.use(s.cfg.Keyspace, s.cfg.Username, s.cfg.Password, false); err != nil {
			if !s.trans.IsOpen() {
				s.Close()
				return fmt.Errorf("Exception connecting to %s/%d. Reason: %v.", host, port, err)
			}
			fmt.Fprintln(s.err, err)
			return nil
		}
	}
	name, err := s.client.DescribeClusterName(s.ctx)
	if err != nil {
		s.Close()
		return fmt.Errorf("Exception connecting to %s/%d. Reason: %v.", host, port, err)
	}
	fmt.Fprintf(s.out, "Connected to: %q on %s/%d\n", name, host, port)
	return nil
}

// Prompt is the interactive prompt, [user@keyspace].
func (s *Session) Prompt() string {
	u := s.username
	if u == "" {
		u = "default"
	}
	ks := s.keyspace
	if ks == "" {
		ks = "unknown"
	}
	return "[" + u + "@" + ks + "] "
}

// Statements splits a script as cassandra-cli's -f does: lines are
// trimmed, blank lines and lines starting with -- are skipped, so are
// /* ... */ blocks, and a statement ends with a line ending in ';'.
func Statements(script string) []string {
	var out []string
	cur := ""
	inComment := false
	sc := bufio.NewScanner(strings.NewReader(script))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		if strings.HasPrefix(line, "/*") {
			inComment = true
		}
		if strings.HasPrefix(line, "*/") || strings.HasSuffix(line, "*/") {
			inComment = false
			continue
		}
		if inComment {
			continue
		}
		cur += line
		if strings.HasSuffix(line, ";") {
			out = append(out, cur)
			cur = ""
		} else {
			cur += " "
		}
	}
	return out
}

// SplitInline splits the statements of one -e argument at each ';'
// outside a quoted string, so that -e "use K; list C;" runs two.
func SplitInline(script string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(script); i++ {
		c := script[i]
		b.WriteByte(c)
		switch {
		case quoted && c == '\\' && i+1 < len(script):
			i++
			b.WriteByte(script[i])
		case c == '\'':
			quoted = !quoted
		case c == ';' && !quoted:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// RunScript runs a script's statements in order. The first that fails
// prints "Line N => message" on the error writer (N counts statements,
// as cassandra-cli's -f does) and stops the script with that error.
func RunScript(s *Session, script string) error {
	for i, st := range Statements(script) {
		if err := s.Exec(st); err != nil {
			if errors.Is(err, ErrQuit) {
				return nil
			}
			fmt.Fprintf(s.err, "Line %d => %s\n", i+1, err)
			return err
		}
	}
	return nil
}

// Piped runs the statements of a standard input that is not a terminal
// as cassandra-cli 1.2 does, which reads it with its interactive shell
// (jline on a stream): after the banner, each line read is written after
// its prompt ([user@keyspace], or "...\t" inside a statement) as the
// shell echoes it, untrimmed; an error prints its message alone (no
// "Line N =>") on the error writer and the script goes on. A carriage
// return ends a line as a newline does, so a CRLF line is followed by an
// empty one; a last line without its newline is echoed and not run. It
// returns nil at quit, exit or the end of input, whatever failed before:
// the real tool exits 0.
func Piped(s *Session, in io.Reader) error {
	h, err := loadHelp()
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Welcome to Cassandra CLI version 1.2.19\n\n%s\n", h.Banner)
	r := bufio.NewReader(in)
	cur := ""
	for {
		if cur == "" {
			io.WriteString(s.out, s.Prompt())
		} else {
			io.WriteString(s.out, "...\t")
		}
		line, err := readLine(r)
		if err != nil {
			io.WriteString(s.out, line)
			if err == io.EOF {
				return nil
			}
			return err
		}
		io.WriteString(s.out, line+"\n")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		cur += line
		if !strings.HasSuffix(line, ";") && line != "?" {
			cur += " "
			continue
		}
		stmt := cur
		cur = ""
		if err := s.Exec(stmt); err != nil {
			if errors.Is(err, ErrQuit) {
				return nil
			}
			fmt.Fprintln(s.err, err)
		}
	}
}

// readLine reads up to a newline or a carriage return, which it drops;
// at the end of input it returns what it read with io.EOF.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		c, err := r.ReadByte()
		if err != nil {
			return b.String(), err
		}
		if c == '\n' || c == '\r' {
			return b.String(), nil
		}
		b.WriteByte(c)
	}
}

// Terminal is how the interactive shell talks to its user.
type Terminal struct {
	In          io.ReadCloser
	Out, ErrOut io.Writer
	// HistoryFile keeps the lines typed, across runs; "" keeps none.
	HistoryFile string
}

// Interactive runs the shell on a terminal, as cassandra-cli's does: the
// prompt [user@keyspace], statements ending with ';' (a line without one
// continues on the next, prompted "...\t"), errors printed and the shell
// going on. It adds line editing, a history kept across runs and tab
// completion of the command words. It returns at quit, exit or the end
// of input (Ctrl-D).
func Interactive(s *Session, term Terminal) error {
	if term.HistoryFile != "" {
		// Create it private first: the history holds keys and values.
		if f, err := os.OpenFile(term.HistoryFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		} else {
			fmt.Fprintf(term.ErrOut, "history is not kept: %v\n", err)
			term.HistoryFile = ""
		}
	}
	rl, err := readline.NewFromConfig(&readline.Config{
		Prompt:            s.Prompt(),
		HistoryFile:       term.HistoryFile,
		HistoryLimit:      10000,
		HistorySearchFold: true,
		AutoComplete:      completer{},
		Stdin:             term.In,
		Stdout:            term.Out,
		Stderr:            term.ErrOut,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	h, err := loadHelp()
	if err != nil {
		return err
	}
	fmt.Fprintf(term.Out, "Welcome to thriftd-cli, a shell for the 19.x Thrift API in cassandra-cli 1.2's grammar.\n\n%s\n", h.Banner)
	cur := ""
	for {
		if cur == "" {
			rl.SetPrompt(s.Prompt())
		} else {
			rl.SetPrompt("...\t")
		}
		line, err := rl.ReadLine()
		if errors.Is(err, readline.ErrInterrupt) {
			cur = ""
			continue
		}
		if err != nil { // io.EOF: Ctrl-D or the end of input
			return nil
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		cur += line
		if !strings.HasSuffix(line, ";") && line != "?" {
			cur += " "
			continue
		}
		stmt := cur
		cur = ""
		if err := s.Exec(stmt); err != nil {
			if errors.Is(err, ErrQuit) {
				return nil
			}
			fmt.Fprintln(term.ErrOut, err)
		}
	}
}

// commandWords are completed at the start of a line.
var commandWords = []string{"assume", "connect", "consistencylevel", "count", "create column family",
	"create keyspace", "decr", "del", "describe", "describe cluster", "drop column family", "drop index on",
	"drop keyspace", "exit", "get", "help", "incr", "list", "quit", "set", "show api version",
	"show cluster name", "show keyspaces", "show schema", "truncate", "update column family",
	"update keyspace", "use"}

// completer completes the command words of a statement's start.
type completer struct{}

func (completer) Do(line []rune, pos int) ([][]rune, int) {
	typed := strings.TrimLeft(string(line[:pos]), " ")
	low := strings.ToLower(typed)
	var out [][]rune
	for _, w := range commandWords {
		if strings.HasPrefix(w, low) && len(w) > len(low) {
			out = append(out, []rune(w[len(low):]+" "))
		}
	}
	return out, len([]rune(typed))
}

// why is the message cassandra-cli prints for a failed call.
func why(err error) error {
	var ire *cassandra19.InvalidRequestException
	if errors.As(err, &ire) {
		return errors.New(ire.Why)
	}
	var nf *cassandra19.NotFoundException
	if errors.As(err, &nf) {
		return errors.New("null")
	}
	var ue *cassandra19.UnavailableException
	if errors.As(err, &ue) {
		return errors.New("null")
	}
	var te *cassandra19.TimedOutException
	if errors.As(err, &te) {
		return errors.New("null")
	}
	var sde *cassandra19.SchemaDisagreementException
	if errors.As(err, &sde) {
		return errors.New("null")
	}
	return err
}

// elapsed prints cassandra-cli's "Elapsed time" line.
func (s *Session) elapsed(start time.Time) {
	d := time.Since(start).Nanoseconds()
	if d < 10000000 {
		fmt.Fprintf(s.out, "Elapsed time: %s msec(s).\n", javaDouble(float64(int64(float64(d)/10000.0+0.5))/100.0))
		return
	}
	fmt.Fprintf(s.out, "Elapsed time: %d msec(s).\n", int64(float64(d)/1000000.0+0.5))
}
