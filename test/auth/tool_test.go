package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// tool runs thriftd-tool against the admin endpoint at addr and returns
// its stdout, stderr and exit code.
func tool(t *testing.T, addr string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(toolBin, append([]string{"--admin", addr}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func mustTool(t *testing.T, addr string, args ...string) string {
	t.Helper()
	out, errOut, code := tool(t, addr, args...)
	if code != 0 {
		t.Fatalf("thriftd-tool %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

// lineOf is the line of out whose first field is name, "" when none.
func lineOf(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}

// thriftd-tool's role commands manage the LevelDB store's roles, and a
// user made with them logs in over Thrift.
func TestRoleCommands(t *testing.T) {
	n, adm := start(t, filepath.Join(t.TempDir(), "audit.log"))
	addr := adm.Addr
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(alicePassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustTool(t, addr, "create-user", "alice", "--password-file", pw); !strings.Contains(out, "CREATE USER alice: done") {
		t.Errorf("create-user printed %q", out)
	}
	mustTool(t, addr, "create-role", "readers")
	mustTool(t, addr, "grant", "SELECT", "KEYSPACE Keyspace1", "readers")
	mustTool(t, addr, "grant-role", "readers", "alice")
	users := mustTool(t, addr, "list-users")
	if f := strings.Fields(lineOf(users, "alice")); len(f) != 4 || f[1] != "false" || f[2] != "true" || f[3] != "readers" {
		t.Errorf("list-users, alice:\n%s", users)
	}
	if lineOf(users, "cassandra") == "" || lineOf(users, "readers") != "" {
		t.Errorf("list-users:\n%s", users)
	}
	var roles []struct {
		Name     string   `json:"role"`
		MemberOf []string `json:"member_of"`
		Hash     string   `json:"salted_hash"`
	}
	if err := json.Unmarshal([]byte(mustTool(t, addr, "--json", "list-roles")), &roles); err != nil {
		t.Fatal(err)
	}
	if len(roles) != 3 || roles[0].Name != "alice" || len(roles[0].MemberOf) != 1 || roles[0].MemberOf[0] != "readers" || roles[0].Hash != "" {
		t.Errorf("list-roles --json: %+v", roles)
	}
	if f := strings.Fields(lineOf(mustTool(t, addr, "list-permissions", "readers"), "readers")); strings.Join(f, " ") != "readers <keyspace Keyspace1> SELECT" {
		t.Errorf("list-permissions readers: %q", f)
	}
	if _, errOut, code := tool(t, addr, "grant", "BOGUS", "KEYSPACE Keyspace1", "alice"); code == 0 || !strings.Contains(errOut, "unknown permission") {
		t.Errorf("grant BOGUS: exit %d, %q", code, errOut)
	}

	c := n.Client19(true)
	if err := c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("alice", alicePassword)}); err != nil {
		t.Fatalf("login as a user made with thriftd-tool: %v", why(err))
	}
	c.SetKeyspace(ctx, "Keyspace1")
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1}}
	if _, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Standard1"}, pred, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Errorf("get_slice with SELECT through readers: %v", why(err))
	}
	mustTool(t, addr, "revoke-role", "readers", "alice")
	if _, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Standard1"}, pred, cassandra19.ConsistencyLevel_ONE); why(err) != "InvalidRequestException: User alice has no SELECT permission on <table Keyspace1.Standard1> or any of its parents" {
		t.Errorf("get_slice after revoke-role: %v", why(err))
	}
	mustTool(t, addr, "drop-user", "alice")
	if lineOf(mustTool(t, addr, "list-users"), "alice") != "" {
		t.Error("list-users lists alice after drop-user")
	}
	noPasswords(t, n.Logs())
}

// Without PasswordAuthenticator the node keeps no roles, and says so.
func TestRoleCommandsWithoutRoles(t *testing.T) {
	n := testenvNode(t)
	if _, errOut, code := tool(t, n, "list-users"); code == 0 || !strings.Contains(errOut, "keeps no roles") {
		t.Errorf("list-users: exit %d, %q", code, errOut)
	}
}

// testenvNode starts thriftd with AllowAllAuthenticator and returns its
// admin endpoint's address.
func testenvNode(t *testing.T) string {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-test.xml"))
	n.Start()
	return testenv.LogValue(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving"})["addr"])
}
