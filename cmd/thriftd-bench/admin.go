package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// adminProbe times GET /v1/info, the request behind thriftd-tool info, on
// thriftd's admin endpoint every interval until stop is closed: how long
// an operator waits for it while thriftd is busy.
type adminProbe struct {
	took []time.Duration
	err  error
	done chan struct{}
}

func probeAdmin(addr string, interval time.Duration, stop <-chan struct{}) *adminProbe {
	p := &adminProbe{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		client := &http.Client{Timeout: 10 * time.Second}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			start := time.Now()
			resp, err := client.Get("http://" + addr + "/v1/info")
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("GET /v1/info: %s", resp.Status)
				}
			}
			if err != nil {
				p.err = err
				return
			}
			p.took = append(p.took, time.Since(start))
		}
	}()
	return p
}

// report waits for the probe to end and prints its figures.
func (p *adminProbe) report(during string) error {
	<-p.done
	if p.err != nil {
		return fmt.Errorf("thriftd-tool info's request failed during %s: %w", during, p.err)
	}
	if len(p.took) == 0 {
		return fmt.Errorf("no thriftd-tool info request completed during %s", during)
	}
	t := slices.Clone(p.took)
	slices.Sort(t)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	fmt.Printf("\nthriftd-tool info (GET /v1/info) during %s: %d requests, p50 %.1f ms, p99 %.1f ms, max %.1f ms (target: under 100 ms)\n",
		during, len(t), ms(t[len(t)/2]), ms(t[(len(t)*99)/100]), ms(t[len(t)-1]))
	return nil
}
