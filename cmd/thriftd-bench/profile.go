package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// recordingName names the Flight Recorder recording -profile keeps on
// each Java process of the comparison (startRecordings).
const recordingName = "thriftd-bench"

// startRecordings starts, for -profile, one continuous JDK Flight
// Recorder recording (the JDK's default settings: an execution sample of
// each running thread every 20 ms) on each Java process among pids, before
// the servers are loaded and warmed: starting a recording deoptimizes
// compiled code, which the warm-up then compiles again, so that no
// measured window pays for it (a recording started for each window cut a
// warm 3.11.19's get_slice from 23,800 calls/s to 780). figureProfiles
// dumps each window from it. It returns what ends the recordings.
func startRecordings(pids []int) (stop func(), err error) {
	var started []int
	stop = func() {
		for _, pid := range started {
			_ = jcmd(pid, "JFR.stop", "name="+recordingName)
		}
	}
	seen := map[int]bool{}
	for _, pid := range pids {
		if seen[pid] || !isJava(pid) {
			continue
		}
		seen[pid] = true
		_ = jcmd(pid, "JFR.stop", "name="+recordingName) // one a run before left
		if err := jcmd(pid, "JFR.start", "name="+recordingName); err != nil {
			stop()
			return nil, err
		}
		started = append(started, pid)
	}
	return stop, nil
}

// figureProfiles records, for -profile, where the processes of one figure
// spend its measured window: thriftd's Go CPU profile from its admin
// endpoint (NAME.pprof) and, for every Java process of the column (a real
// Cassandra node, the Cassandra node behind thriftd's store or behind the
// direct client), the window of its recording (startRecordings) in
// NAME-PID.jfr (jfr print --events jdk.ExecutionSample FILE). It returns
// the function that ends the window.
func figureProfiles(dir, name, admin string, pids []int, d time.Duration) func() error {
	var stops []func() error
	if admin != "" {
		stops = append(stops, profileCPU(admin, d, filepath.Join(dir, name+".pprof")))
	}
	begin := time.Now().UTC()
	for _, pid := range pids {
		if !isJava(pid) {
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%d.jfr", name, pid))
		stops = append(stops, func() error {
			return jcmd(pid, "JFR.dump", "name="+recordingName, "begin="+begin.Format(time.RFC3339), "end="+time.Now().UTC().Format(time.RFC3339), "filename="+file)
		})
	}
	return func() error {
		var errs []error
		for _, stop := range stops {
			errs = append(errs, stop())
		}
		return errors.Join(errs...)
	}
}

// isJava reports whether process pid runs a java binary.
func isJava(pid int) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return pid > 0 && err == nil && filepath.Base(exe) == "java"
}

// jcmd sends a diagnostic command to the JVM pid, with the jcmd of that
// JVM's own JDK (beside its java binary).
func jcmd(pid int, args ...string) error {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return err
	}
	bin := filepath.Join(filepath.Dir(exe), "jcmd")
	out, err := exec.Command(bin, append([]string{fmt.Sprint(pid)}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("jcmd %d %s: %v: %s", pid, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	// jcmd exits 0 when the JVM refuses a command; the refusal is in its
	// output.
	if s := string(out); strings.Contains(s, "Could not") || strings.Contains(s, "No recording") || strings.Contains(s, "Exception") {
		return fmt.Errorf("jcmd %d %s: %s", pid, strings.Join(args, " "), strings.TrimSpace(s))
	}
	return nil
}
