// Command stage is the build stage of deploy/Containerfile: it builds
// thriftd, thriftd-tool and thriftd-cli as static binaries and lays out
// the runtime image's files (the non-root user, its volumes' mount
// points), so that neither stage of the image needs a shell.
//
//	go run ./deploy/stage OUT
//
// writes OUT/thriftd, OUT/thriftd-tool, OUT/thriftd-cli and OUT/rootfs.
// $VERSION, when set, is what the status page and logs report as
// thriftd's version.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The runtime's user: a fixed, unprivileged ID that a volume's owner can
// be set to on the host (chown 10001:10001 DIR).
const (
	uid  = 10001
	user = "thriftd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./deploy/stage OUT")
		os.Exit(2)
	}
	if err := stage(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "stage:", err)
		os.Exit(1)
	}
}

func stage(out string) error {
	ldflags := "-s -w"
	if v := os.Getenv("VERSION"); v != "" {
		ldflags += " -X github.com/thriftd/thriftd/admin.Version=" + v
	}
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags,
		"-o", out+"/", "./cmd/thriftd", "./cmd/thriftd-tool", "./cmd/thriftd-cli")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	root := filepath.Join(out, "rootfs")
	files := map[string]string{
		"etc/passwd": fmt.Sprintf("root:x:0:0:root:/:/sbin/nologin\n%s:x:%d:%d:thriftd:/var/lib/thriftd:/sbin/nologin\n", user, uid, uid),
		"etc/group":  fmt.Sprintf("root:x:0:\n%s:x:%d:\n", user, uid),
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	// The data volume and /tmp belong to the user; the configuration is
	// mounted read-only over /etc/thriftd.
	for _, d := range []struct {
		path  string
		mode  os.FileMode
		owned bool
	}{{"etc/thriftd", 0o755, false}, {"var/lib/thriftd", 0o750, true}, {"tmp", 0o1777, false}} {
		p := filepath.Join(root, d.path)
		// The parents are anyone's to traverse; the directory has its mode.
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(p, d.mode); err != nil && !os.IsExist(err) {
			return err
		}
		if err := os.Chmod(p, d.mode); err != nil {
			return err
		}
		if d.owned {
			if err := os.Chown(p, uid, uid); err != nil {
				return err
			}
		}
	}
	return nil
}
