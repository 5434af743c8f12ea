package transfer

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Reporter shows a transfer's Stats as it runs: a progress bar (rows,
// columns, bytes, rate, and the ETA when the total is known) on a
// terminal, else a log line every interval. Stop ends it.
type Reporter struct {
	done chan struct{}
	wg   sync.WaitGroup
}

// Report starts showing s: a bar on out when terminal is set, else log
// lines to log every interval.
func Report(s *Stats, out io.Writer, terminal bool, log *slog.Logger, interval time.Duration) *Reporter {
	r := &Reporter{done: make(chan struct{})}
	r.wg.Add(1)
	if terminal {
		go r.bar(s, out)
	} else {
		go r.lines(s, log, interval)
	}
	return r
}

// Stop ends the display and waits for it.
func (r *Reporter) Stop() {
	close(r.done)
	r.wg.Wait()
}

func (r *Reporter) bar(s *Stats, out io.Writer) {
	defer r.wg.Done()
	var bar *progressbar.ProgressBar
	total := int64(-1)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		t := s.Total.Load()
		if bar == nil || (t > 0 && total <= 0) {
			total = t
			if total <= 0 {
				total = -1
			}
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(out),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(20),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionSetPredictTime(total > 0),
				progressbar.OptionShowElapsedTimeOnFinish(),
				progressbar.OptionSpinnerType(14),
				progressbar.OptionClearOnFinish(),
			)
		}
		bar.Describe(fmt.Sprintf("%d rows, %d columns", s.Rows.Load(), s.Columns.Load()))
		if total > 0 {
			bar.Set64(s.Done.Load())
		} else {
			bar.Set64(s.Bytes.Load())
		}
		select {
		case <-r.done:
			bar.Exit()
			fmt.Fprintln(out)
			return
		case <-tick.C:
		}
	}
}

func (r *Reporter) lines(s *Stats, log *slog.Logger, interval time.Duration) {
	defer r.wg.Done()
	t0 := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-tick.C:
		}
		el := time.Since(t0).Seconds()
		cols := s.Columns.Load()
		args := []any{"rows", s.Rows.Load(), "columns", cols, "bytes", s.Bytes.Load(),
			"columns_per_s", int64(float64(cols) / el)}
		if total, done := s.Total.Load(), s.Done.Load(); total > 0 && done > 0 {
			frac := float64(done) / float64(total)
			eta := time.Duration(el * (1 - frac) / frac * float64(time.Second)).Round(time.Second)
			args = append(args, "percent", int(100*frac), "eta", eta.String())
		}
		log.Info("progress", args...)
	}
}
