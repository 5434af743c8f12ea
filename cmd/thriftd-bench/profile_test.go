package main

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFigureProfilesRecordsJFR records a running JVM as -profile records
// a Cassandra node (startRecordings, then a window of it with
// figureProfiles), and checks the window is the JVM's Flight Recorder file
// holding the JVM's execution samples, and that a process that is not
// Java is left alone.
func TestFigureProfilesRecordsJFR(t *testing.T) {
	java := cmp.Or(os.Getenv("THRIFTD_CASSANDRA_JAVA"), "/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
	dir := t.TempDir()
	src := filepath.Join(dir, "Spin.java")
	prog := `class Spin { public static void main(String[] a) throws Exception { long n = 0; while (true) { n += System.nanoTime() % 7; if (n < 0) System.out.println(n); } } }`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-XX:TieredStopAtLevel=1", src)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s (THRIFTD_CASSANDRA_JAVA names Java 17): %v", java, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	// The JVM answers diagnostic commands once it has started.
	deadline := time.Now().Add(2 * time.Minute)
	for err := jcmd(pid, "VM.version"); err != nil; err = jcmd(pid, "VM.version") {
		if time.Now().After(deadline) {
			t.Fatalf("the JVM never answered jcmd: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	end, err := startRecordings([]int{os.Getpid(), pid, pid})
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	stop := figureProfiles(dir, "get-slice-cql-32", "", []int{os.Getpid(), pid}, time.Second)
	time.Sleep(2 * time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(dir, "get-slice-cql-32-"+strconv.Itoa(pid)+".jfr"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(rec, []byte("FLR\x00")) {
		t.Fatalf("the recording is not a Flight Recorder file: %q", rec[:min(len(rec), 16)])
	}
	out, err := exec.Command(filepath.Join(filepath.Dir(java), "jfr"), "print", "--events", "jdk.ExecutionSample", filepath.Join(dir, "get-slice-cql-32-"+strconv.Itoa(pid)+".jfr")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Spin.main") {
		t.Fatalf("the window holds no sample of the spinning thread (%v): %.500s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "get-slice-cql-32-"+strconv.Itoa(os.Getpid())+".jfr")); err == nil {
		t.Fatal("a process that is not Java was recorded")
	}
}
