package auth

import (
	"encoding/json"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// Audit writes one JSON line per login (success or failure) and per
// refused permission, with the fields of Cassandra 4's audit log: type
// (LOGIN_SUCCESS, LOGIN_ERROR, UNAUTHORIZED_ATTEMPT), category (AUTH),
// user, host (the server's address), source and port (the client's),
// operation (the Thrift call, and the refusal's message), keyspace and
// scope (the table). A password never reaches it. A nil *Audit writes
// nothing. It is safe for concurrent use.
type Audit struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewAudit returns an Audit writing to w; now nil means time.Now.
func NewAudit(w io.Writer, now func() time.Time) *Audit {
	if now == nil {
		now = time.Now
	}
	return &Audit{w: w, now: now}
}

// Entry is one line of the audit log.
type Entry struct {
	Timestamp int64  `json:"timestamp"` // Unix milliseconds
	Type      string `json:"type"`
	Category  string `json:"category"`
	User      string `json:"user"`
	Host      string `json:"host,omitempty"`
	Source    string `json:"source"`
	Port      int    `json:"port,omitempty"`
	Operation string `json:"operation"`
	Keyspace  string `json:"keyspace,omitempty"`
	Scope     string `json:"scope,omitempty"`
}

func (a *Audit) write(c *Conn, e Entry) {
	if a == nil {
		return
	}
	e.Timestamp = a.now().UnixMilli()
	e.Category = "AUTH"
	e.Host = c.Host
	e.Source = c.Peer
	if h, p, err := net.SplitHostPort(c.Peer); err == nil {
		e.Source = h
		e.Port, _ = strconv.Atoi(p)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(append(line, '\n'))
}

func (a *Audit) login(c *Conn, call, user string, ok bool, why string) {
	e := Entry{Type: "LOGIN_SUCCESS", User: user, Operation: call}
	if !ok {
		e.Type = "LOGIN_ERROR"
		e.Operation = call + ": " + why
	}
	a.write(c, e)
}

func (a *Audit) refused(c *Conn, call string, r Resource, why string) {
	a.write(c, Entry{Type: "UNAUTHORIZED_ATTEMPT", User: c.User, Operation: call + ": " + why,
		Keyspace: r.Keyspace(), Scope: r.Table()})
}
