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

// figureProfiles records, for -profile, where the processes of one figure
// spend its measured window: thriftd's Go CPU profile from its admin
// endpoint (NAME.pprof) and, for every Java process of the column (a real
// Cassandra node, the Cassandra node behind thriftd's store or behind the
// direct client), a JDK Flight Recorder recording with the "profile"
// settings (NAME-PID.jfr: jfr print --events jdk.ExecutionSample FILE).
// The recorder's sampling costs the JVM a little CPU, which the figures
// of a profiled run include. It returns the function that ends the
// recordings once the window is over.
func figureProfiles(dir, name, admin string, pids []int, d time.Duration) func() error {
	var stops []func() error
	if admin != "" {
		stops = append(stops, profileCPU(admin, d, filepath.Join(dir, name+".pprof")))
	}
	for _, pid := range pids {
		if !isJava(pid) {
			continue
		}
		rec := fmt.Sprintf("thriftd-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
		if err := jcmd(pid, "JFR.start", "name="+rec, "settings=profile"); err != nil {
			stops = append(stops, func() error { return err })
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%d.jfr", name, pid))
		stops = append(stops, func() error { return jcmd(pid, "JFR.stop", "name="+rec, "filename="+file) })
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
	return nil
}
