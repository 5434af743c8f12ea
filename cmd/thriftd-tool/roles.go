package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/thriftd/thriftd/admin"
)

// The role commands manage the roles and permissions thriftd keeps on the
// LevelDB store under PasswordAuthenticator and CassandraAuthorizer, with
// the names of CQL's statements (docs/security.md). On a Cassandra
// cluster, roles are the cluster's and CQL manages them.

// roleFlags are the options of CREATE and ALTER ROLE.
type roleFlags struct {
	passwordFile string
	superuser    bool
	login        bool
}

func (f *roleFlags) add(cmd *cobra.Command, login bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.passwordFile, "password-file", "", "read the password from the first line of `FILE` (- for standard input); never from the command line, which other users can see")
	fl.BoolVar(&f.superuser, "superuser", false, "the role is a superuser: it holds every permission")
	if login {
		fl.BoolVar(&f.login, "login", false, "the role may log in (a user)")
	}
}

// change builds the options the command line set.
func (f *roleFlags) change(cmd *cobra.Command, ch *admin.RoleChange) error {
	fl := cmd.Flags()
	if fl.Changed("password-file") {
		pw, err := readRolePassword(f.passwordFile, cmd.InOrStdin())
		if err != nil {
			return err
		}
		ch.Password = &pw
	}
	if fl.Changed("superuser") {
		ch.Superuser = &f.superuser
	}
	if fl.Changed("login") {
		ch.Login = &f.login
	}
	return nil
}

func readRolePassword(name string, stdin io.Reader) (string, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("password file: %w", err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("password file: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("password file %s: the first line is empty", name)
	}
	return line, nil
}

func newRoleCmds(o *options) []*cobra.Command {
	run := func(cmd *cobra.Command, ch admin.RoleChange) error {
		v, err := o.client.ChangeRoles(cmd.Context(), ch)
		if err != nil {
			return err
		}
		if o.json {
			return o.print(cmd).Done(v)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s: done\n", strings.ToUpper(strings.ReplaceAll(ch.Statement, "_", " ")), ch.Role)
		return err
	}
	roleCmd := func(use, statement, short string, login, withOptions bool) *cobra.Command {
		var f roleFlags
		c := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  o.args(cobra.ExactArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				ch := admin.RoleChange{Statement: statement, Role: args[0]}
				if err := f.change(cmd, &ch); err != nil {
					return err
				}
				return run(cmd, ch)
			},
		}
		if withOptions {
			f.add(c, login)
		}
		return c
	}
	permCmd := func(statement, prep string) *cobra.Command {
		return &cobra.Command{
			Use:   statement + " PERMISSION[,PERMISSION...] RESOURCE ROLE",
			Short: strings.ToUpper(statement) + " permissions ON a resource " + strings.ToUpper(prep) + " a role",
			Long: strings.ToUpper(statement) + ` PERMISSION ON RESOURCE ` + strings.ToUpper(prep) + ` ROLE, as in CQL. PERMISSION is SELECT,
MODIFY, CREATE, ALTER, DROP, AUTHORIZE or ALL; RESOURCE is "ALL KEYSPACES",
"KEYSPACE ks" or "TABLE ks.cf" (or ks.cf).`,
			Args: o.args(cobra.ExactArgs(3)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return run(cmd, admin.RoleChange{Statement: statement, Permissions: strings.Split(args[0], ","), Resource: args[1], Role: args[2]})
			},
		}
	}
	memberCmd := func(statement, prep string) *cobra.Command {
		return &cobra.Command{
			Use:   strings.ReplaceAll(statement, "_", "-") + " ROLE GRANTEE",
			Short: strings.ToUpper(strings.ReplaceAll(statement, "_", " ")) + " ROLE " + strings.ToUpper(prep) + " GRANTEE: GRANTEE gains or loses ROLE's permissions and superuser status",
			Args:  o.args(cobra.ExactArgs(2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return run(cmd, admin.RoleChange{Statement: statement, Role: args[0], Grantee: args[1]})
			},
		}
	}
	listUsers := &cobra.Command{
		Use:   "list-users",
		Short: "LIST USERS: the roles that may log in",
		Args:  o.args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return listRoles(o, cmd, true) },
	}
	listRolesCmd := &cobra.Command{
		Use:   "list-roles",
		Short: "LIST ROLES: every role",
		Args:  o.args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return listRoles(o, cmd, false) },
	}
	listPerms := &cobra.Command{
		Use:   "list-permissions [ROLE]",
		Short: "LIST ALL PERMISSIONS [OF ROLE]: the permissions granted to each role itself",
		Args:  o.args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			role := ""
			if len(args) == 1 {
				role = args[0]
			}
			lines, err := o.client.Permissions(cmd.Context(), role)
			if err != nil {
				return err
			}
			if o.json {
				return printJSON(cmd.OutOrStdout(), lines)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "role\tresource\tpermission")
			for _, l := range lines {
				fmt.Fprintf(w, "%s\t%s\t%s\n", l.Role, l.Resource, l.Permission)
			}
			return w.Flush()
		},
	}
	return []*cobra.Command{
		roleCmd("create-user NAME --password-file FILE [--superuser]", "create_user", "CREATE USER: a role that may log in", false, true),
		roleCmd("alter-user NAME [--password-file FILE] [--superuser=BOOL]", "alter_user", "ALTER USER: change a user's password or superuser status", false, true),
		roleCmd("drop-user NAME", "drop_user", "DROP USER: the role, its permissions and memberships go", false, false),
		roleCmd("create-role NAME [--password-file FILE] [--login] [--superuser]", "create_role", "CREATE ROLE", true, true),
		roleCmd("alter-role NAME [--password-file FILE] [--login=BOOL] [--superuser=BOOL]", "alter_role", "ALTER ROLE", true, true),
		roleCmd("drop-role NAME", "drop_role", "DROP ROLE", false, false),
		permCmd("grant", "to"), permCmd("revoke", "from"),
		memberCmd("grant_role", "to"), memberCmd("revoke_role", "from"),
		listUsers, listRolesCmd, listPerms,
	}
}

func listRoles(o *options, cmd *cobra.Command, usersOnly bool) error {
	roles, err := o.client.Roles(cmd.Context())
	if err != nil {
		return err
	}
	if usersOnly {
		kept := roles[:0]
		for _, r := range roles {
			if r.CanLogin {
				kept = append(kept, r)
			}
		}
		roles = kept
	}
	if o.json {
		return printJSON(cmd.OutOrStdout(), roles)
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "role\tsuper\tlogin\tmember_of")
	for _, r := range roles {
		fmt.Fprintf(w, "%s\t%v\t%v\t%s\n", r.Name, r.Superuser, r.CanLogin, strings.Join(r.MemberOf, ","))
	}
	return w.Flush()
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
