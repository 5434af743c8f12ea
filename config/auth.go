package config

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// Auth is what org.apache.cassandra.auth.SimpleAuthenticator reads: who
// may log in with which password, and who may use which keyspace.
type Auth struct {
	// Passwords maps a user name to the password as stored: plain text,
	// or the lowercase hex MD5 of the password in MD5 mode.
	Passwords map[string]string
	// Access maps a keyspace name to the users allowed to log in to it,
	// in the order written. Names are exactly as written between commas,
	// spaces included: "a, b" allows "a" and " b", as in 0.6.
	Access map[string][]string
}

// LoadAuth reads SimpleAuthenticator's two files in java.util.Properties
// syntax (see parseProperties): passwdFile holds user=password lines,
// accessFile keyspace=user1,user2,... lines. A later line for the same key
// replaces an earlier one, as in Java. A file that is missing, unreadable
// or malformed gives an *Error naming it, so that start-up can stop with
// that message rather than fail every login later (spec 16.7).
func LoadAuth(passwdFile, accessFile string) (*Auth, error) {
	passwd, err := loadProperties(passwdFile)
	if err != nil {
		return nil, err
	}
	access, err := loadProperties(accessFile)
	if err != nil {
		return nil, err
	}
	a := &Auth{Passwords: map[string]string{}, Access: map[string][]string{}}
	for _, p := range passwd {
		a.Passwords[p.key] = p.value
	}
	for _, p := range access {
		a.Access[p.key] = javaSplitComma(p.value)
	}
	return a, nil
}

func loadProperties(path string) ([]property, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = "cannot read the file: " + pe.Err.Error()
		}
		return nil, &Error{File: path, Msg: msg, Err: err}
	}
	props, err := parseProperties(data)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = path
		}
		return nil, err
	}
	return props, nil
}

// javaSplitComma is Java's s.split(","): the pieces between commas, with
// trailing empty pieces dropped; a string without a comma is one piece,
// even when empty.
func javaSplitComma(s string) []string {
	parts := strings.Split(s, ",")
	if len(parts) == 1 {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
