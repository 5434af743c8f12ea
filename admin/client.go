package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// Client calls a node's admin endpoint.
type Client struct {
	// Addr is the endpoint's HOST:PORT.
	Addr string
	// Token is sent as a bearer token when set.
	Token string
	// HTTP is the client used; nil means one with a 10 minute timeout
	// (compaction of a large store takes a while).
	HTTP *http.Client
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, out any) error {
	return c.send(ctx, method, path, q, nil, out)
}

// doBody sends in as the request's JSON body.
func (c *Client) doBody(ctx context.Context, method, path string, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return c.send(ctx, method, path, nil, raw, out)
}

func (c *Client) send(ctx context.Context, method, path string, q url.Values, body []byte, out any) error {
	u := url.URL{Scheme: "http", Host: c.Addr, Path: path, RawQuery: q.Encode()}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach thriftd's admin endpoint at %s (is thriftd running, and is -admin set to this address?): %w", c.Addr, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", c.Addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e Error
		if json.Unmarshal(answer, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s", e.Error)
		}
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(answer)))
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("unexpected answer from %s%s: %w", c.Addr, path, err)
	}
	return nil
}

// Info is nodetool info.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var v Info
	return v, c.do(ctx, http.MethodGet, "/v1/info", nil, &v)
}

// Ring is nodetool ring.
func (c *Client) Ring(ctx context.Context) ([]RingEntry, error) {
	var v []RingEntry
	return v, c.do(ctx, http.MethodGet, "/v1/ring", nil, &v)
}

// TPStats is nodetool tpstats: one pool per Thrift method.
func (c *Client) TPStats(ctx context.Context) ([]Pool, error) {
	var v []Pool
	return v, c.do(ctx, http.MethodGet, "/v1/tpstats", nil, &v)
}

// CFStats is nodetool cfstats, for every keyspace, one keyspace, or one
// column family.
func (c *Client) CFStats(ctx context.Context, keyspace, cf string) ([]KeyspaceStats, error) {
	var v []KeyspaceStats
	return v, c.do(ctx, http.MethodGet, "/v1/cfstats", scope(keyspace, cf), &v)
}

// Flush is nodetool flush. The memtable is shared, so keyspace and cfs
// (either may be empty) are only checked against the node's schema.
func (c *Client) Flush(ctx context.Context, keyspace string, cfs ...string) (Done, error) {
	q := scope(keyspace, "")
	for _, cf := range cfs {
		q.Add("cf", cf)
	}
	var v Done
	return v, c.do(ctx, http.MethodPost, "/v1/flush", q, &v)
}

// Compact is nodetool compact: the whole store, a keyspace, or one column
// family.
func (c *Client) Compact(ctx context.Context, keyspace, cf string) (Done, error) {
	var v Done
	return v, c.do(ctx, http.MethodPost, "/v1/compact", scope(keyspace, cf), &v)
}

// Snapshot is nodetool snapshot; an empty name lets the node choose.
func (c *Client) Snapshot(ctx context.Context, name string) (Done, error) {
	var v Done
	return v, c.do(ctx, http.MethodPost, "/v1/snapshot", named(name), &v)
}

// ClearSnapshot is nodetool clearsnapshot; an empty name removes all.
func (c *Client) ClearSnapshot(ctx context.Context, name string) (Done, error) {
	var v Done
	return v, c.do(ctx, http.MethodPost, "/v1/clearsnapshot", named(name), &v)
}

// Snapshots lists the node's snapshots.
func (c *Client) Snapshots(ctx context.Context) ([]engine.SnapshotInfo, error) {
	var v []engine.SnapshotInfo
	return v, c.do(ctx, http.MethodGet, "/v1/snapshots", nil, &v)
}

// Drain is nodetool drain.
func (c *Client) Drain(ctx context.Context) (Done, error) {
	var v Done
	return v, c.do(ctx, http.MethodPost, "/v1/drain", nil, &v)
}

func scope(keyspace, cf string) url.Values {
	q := url.Values{}
	if keyspace != "" {
		q.Set("keyspace", keyspace)
	}
	if cf != "" {
		q.Set("cf", cf)
	}
	return q
}

func named(name string) url.Values {
	q := url.Values{}
	if name != "" {
		q.Set("name", name)
	}
	return q
}

// MigrationStatus is the migration proxy's state (GET /v1/migration).
type MigrationStatus struct {
	Origin  string `json:"origin"`
	Reads   string `json:"reads"`
	Writes  string `json:"writes"`
	Pending int    `json:"pending_writes"`
	LogPath string `json:"pending_log"`
}

// Migration reports the migration proxy's settings and durable log.
func (c *Client) Migration(ctx context.Context) (MigrationStatus, error) {
	var v MigrationStatus
	return v, c.do(ctx, http.MethodGet, "/v1/migration", nil, &v)
}

// SetMigration changes who answers reads and who takes writes; an empty
// value keeps the current one.
func (c *Client) SetMigration(ctx context.Context, reads, writes string) (MigrationStatus, error) {
	q := url.Values{}
	if reads != "" {
		q.Set("reads", reads)
	}
	if writes != "" {
		q.Set("writes", writes)
	}
	var v MigrationStatus
	return v, c.do(ctx, http.MethodPost, "/v1/migration", q, &v)
}
