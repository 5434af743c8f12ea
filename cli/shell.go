package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/ergochat/readline"
)

// RunScript runs a batch of statements (from -e, -f or a pipe). It parses
// the whole script first, so a syntax error anywhere runs nothing; then it
// runs the statements in order and stops at the first that fails. Every
// error is printed through s's printer; the first one is returned, nil if
// all succeeded (quit ends the script successfully).
func RunScript(ctx context.Context, s *Session, src string) error {
	stmts, err := Parse(src)
	if err != nil {
		s.out.Error(err)
		return err
	}
	for _, st := range stmts {
		if err := s.Exec(ctx, st); err != nil {
			if errors.Is(err, ErrQuit) {
				return nil
			}
			s.out.Error(err)
			return err
		}
	}
	return nil
}

// Terminal is how the interactive shell talks to its user.
type Terminal struct {
	In          io.ReadCloser
	Out, ErrOut io.Writer
	// HistoryFile keeps the lines typed, across runs; "" keeps none.
	HistoryFile string
}

// Interactive runs the shell on a terminal: line editing, persistent
// history, tab completion of commands, keyspaces and column families.
// Errors are printed and the shell goes on; it returns at quit, exit or
// end of input (Ctrl-D).
func Interactive(ctx context.Context, s *Session, term Terminal) error {
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
		Prompt:            prompt(s),
		HistoryFile:       term.HistoryFile,
		HistoryLimit:      10000,
		HistorySearchFold: true,
		AutoComplete:      &Completer{Session: s, Ctx: ctx},
		Stdin:             term.In,
		Stdout:            term.Out,
		Stderr:            term.ErrOut,
	})
	if err != nil {
		return err
	}
	defer rl.Close()

	if err := s.Connect(ctx); err != nil {
		s.out.Error(err)
		fmt.Fprintln(term.Out, "Not connected: use connect <host>/<port>, or any command to try again.")
	}
	fmt.Fprintln(term.Out, "Welcome to thriftd-cli, a shell for Cassandra 0.6's Thrift API.")
	fmt.Fprintln(term.Out)
	fmt.Fprintln(term.Out, "Type 'help' or '?' for help. Type 'quit' or 'exit' to quit.")
	for {
		rl.SetPrompt(prompt(s))
		line, err := rl.ReadLine()
		if errors.Is(err, readline.ErrInterrupt) {
			continue
		}
		if err != nil { // io.EOF: Ctrl-D or the end of input
			return nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		stmts, err := Parse(line)
		if err != nil {
			s.out.Error(err)
			continue
		}
		for _, st := range stmts {
			if err := execInterruptible(ctx, s, st); err != nil {
				if errors.Is(err, ErrQuit) {
					return nil
				}
				s.out.Error(err)
				break
			}
		}
	}
}

// execInterruptible runs one statement of the interactive shell; Ctrl-C
// (SIGINT) while it runs stops it, not the shell. At the prompt the line
// editor reads Ctrl-C as a key instead.
func execInterruptible(ctx context.Context, s *Session, st Statement) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	done := make(chan struct{})
	defer close(done) // ends the watcher before the signal is released
	go func() {
		select {
		case <-sig:
			cancel()
		case <-done:
		}
	}()
	return s.Exec(ctx, st)
}

func prompt(s *Session) string {
	if ks := s.Keyspace(); ks != "" {
		return "thriftd " + ks + "> "
	}
	return "thriftd> "
}
