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
	t0 := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		t := s.Total.Load()
		if bar == nil || (t > 0 && total <= 0) {
			if bar != nil {
				bar.Clear()
			}
			total = t
			if total <= 0 {
				total = -1
			}
			opts := []progressbar.Option{
				progressbar.OptionSetWriter(out),
				progressbar.OptionSetWidth(20),
				progressbar.OptionThrottle(100 * time.Millisecond),
				progressbar.OptionSetPredictTime(total > 0),
				progressbar.OptionSpinnerType(14),
				// The spinner turns as this loop redraws, with no
				// goroutine of the library's own.
				progressbar.OptionSetSpinnerChangeInterval(0),
				progressbar.OptionClearOnFinish(),
			}
			if !s.AlongRing.Load() {
				// The bar counts bytes: of the file, or moved.
				opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionShowCount(), progressbar.OptionShowIts())
			}
			bar = progressbar.NewOptions64(total, opts...)
		}
		cols := s.Columns.Load()
		desc := fmt.Sprintf("%d rows, %d columns (%.0f/s)", s.Rows.Load(), cols, float64(cols)/time.Since(t0).Seconds())
		if s.AlongRing.Load() {
			desc += ", " + humanBytes(s.Bytes.Load())
		}
		bar.Describe(desc)
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

// humanBytes formats n bytes in binary units.
func humanBytes(n int64) string {
	b := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
