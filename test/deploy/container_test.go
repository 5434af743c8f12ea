//go:build deploy

package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// podmanArgs are podman's global flags for this machine: its own image
// store under ~/.cache/thriftd, and on a host whose cgroups are v1 or
// hybrid (crun refuses those) runc with cgroupfs.
func podmanArgs(t *testing.T) []string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--root", filepath.Join(home, ".cache", "thriftd", "podman", "storage"), "--runroot", "/run/thriftd-podman"}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err != nil {
		need(t, "runc", "runc")
		args = append(args, "--runtime", "runc", "--cgroup-manager", "cgroupfs")
	}
	return args
}

// ulimits are the container's limits: the ones this process has, as
// podman's defaults may be above what an unprivileged sandbox can grant.
var ulimits = []string{"--ulimit", "nofile=16384:16384", "--ulimit", "nproc=4096:4096"}

// TestContainer builds the image of deploy/Containerfile with deploy/image
// (its Go stage made from this machine's toolchain), runs it with podman
// on a configuration directory and a data volume, writes through a Thrift
// client, checks the health check, stops it with SIGTERM (podman stop:
// thriftd drains and exits 0), starts a new container on the same volume
// and reads the data back. If podman cannot run a container here, the test
// fails and says why.
func TestContainer(t *testing.T) {
	podman := need(t, "podman", "podman")
	global := podmanArgs(t)
	pm := func(args ...string) string {
		t.Helper()
		return command(t, podman, append(append([]string(nil), global...), args...)...)
	}
	// A tag of this run's own: two runs at once share the image store.
	tag := "localhost/thriftd:test-" + strconv.Itoa(os.Getpid())
	start := time.Now()
	build := repoCmd("deploy/image", tag)
	build.Env = append(os.Environ(), "PODMAN="+podman+" "+strings.Join(global, " "), "PODMAN_BUILD_FLAGS="+strings.Join(ulimits, " "))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("deploy/image: %v\n%s", err, out)
	}
	t.Logf("deploy/image built %s in %s", tag, time.Since(start).Round(time.Second))
	t.Cleanup(func() { run(podman, append(append([]string(nil), global...), "rmi", "-f", tag)...) })

	// The configuration volume: a thriftd.yaml naming a stock
	// storage-conf.xml, the addresses free ports of this host (the
	// container shares its network).
	conf := t.TempDir()
	thrift, admin := testenv.FreePort(t), testenv.FreePort(t)
	xml := readRepo(t, "test/fixtures/storage-conf-0.6-default.xml")
	if err := os.WriteFile(filepath.Join(conf, "storage-conf.xml"), []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf("storage_conf: storage-conf.xml\nlisten: 127.0.0.1:%d\nadmin:\n  listen: 127.0.0.1:%d\n", thrift, admin)
	if err := os.WriteFile(filepath.Join(conf, "thriftd.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	volume := "thriftd-test-" + strconv.Itoa(os.Getpid())
	pm("volume", "create", volume)
	t.Cleanup(func() { run(podman, append(append([]string(nil), global...), "volume", "rm", "-f", volume)...) })

	name := "thriftd-test-" + strconv.Itoa(os.Getpid())
	runContainer := func(config string) {
		t.Helper()
		args := append([]string{"run", "-d", "--name", name, "--network", "host"}, ulimits...)
		args = append(args, "-v", conf+":/etc/thriftd:ro", "-v", volume+":/var/lib/thriftd", tag,
			"-config", config, "-data", "/var/lib/thriftd", "-log-format", "json")
		if config != "/etc/thriftd/thriftd.yaml" {
			// storage-conf.xml alone: the addresses as flags.
			args = append(args, "-listen", fmt.Sprintf("127.0.0.1:%d", thrift), "-admin", fmt.Sprintf("127.0.0.1:%d", admin))
		}
		out, err := run(podman, append(append([]string(nil), global...), args...)...)
		if err != nil {
			t.Fatalf("podman cannot run a container on this machine (podman %s): %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Cleanup(func() { run(podman, append(append([]string(nil), global...), "rm", "-f", name)...) })
	}
	logs := func() string {
		out, _ := run(podman, append(append([]string(nil), global...), "logs", name)...)
		return out
	}
	addr := fmt.Sprintf("127.0.0.1:%d", thrift)
	dial := func() *testenv.Client {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); ; {
			c, err := testenv.Dial(addr, true, 10*time.Second)
			if err == nil {
				return c
			}
			state, _ := run(podman, append(append([]string(nil), global...), "inspect", "--format", "{{.State.Status}}", name)...)
			if strings.TrimSpace(state) != "running" || time.Now().After(deadline) {
				t.Fatalf("thriftd in the container does not serve on %s (%s): %v\n%s", addr, strings.TrimSpace(state), err, logs())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	runContainer("/etc/thriftd/thriftd.yaml")
	c := dial()
	cp := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	const rows = 50
	for i := range rows {
		if err := c.Insert(ctx(), "Keyspace1", "k"+strconv.Itoa(i), cp, []byte("v"+strconv.Itoa(i)), 1, cassandra.ConsistencyLevel_ONE); err != nil {
			t.Fatalf("insert into the container's thriftd: %v", err)
		}
	}
	c.Close()
	if out, err := run(podman, append(append([]string(nil), global...), "healthcheck", "run", name)...); err != nil {
		t.Errorf("podman healthcheck run: %v\n%s", err, out)
	}
	user := pm("top", name, "user")
	if strings.Contains(user, "root") {
		t.Errorf("thriftd runs as root in the container:\n%s", user)
	}

	// podman stop sends SIGTERM: thriftd finishes its calls, closes the
	// store and exits 0, within podman stop's time.
	pm("stop", "--time", "60", name)
	if code := strings.TrimSpace(pm("inspect", "--format", "{{.State.ExitCode}}", name)); code != "0" {
		t.Errorf("thriftd exited %s on SIGTERM, want 0\n%s", code, logs())
	}
	l := logs()
	for _, want := range []string{"shutting down: finishing calls in flight", `"msg":"thriftd stopped"`} {
		if !strings.Contains(l, want) {
			t.Errorf("the container's log has no %q:\n%s", want, l)
		}
	}
	pm("rm", name)

	// A new container on the same volume, on storage-conf.xml alone.
	runContainer("/etc/thriftd/storage-conf.xml")
	c = dial()
	defer c.Close()
	for i := range rows {
		got, err := c.Get(ctx(), "Keyspace1", "k"+strconv.Itoa(i), cp, cassandra.ConsistencyLevel_ONE)
		if err != nil {
			t.Fatalf("reading k%d back after the restart: %v\n%s", i, err, logs())
		}
		if want := "v" + strconv.Itoa(i); string(got.Column.Value) != want {
			t.Fatalf("k%d = %q after the restart, want %q", i, got.Column.Value, want)
		}
	}
	pm("stop", "--time", "60", name)
}
