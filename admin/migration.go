package admin

import (
	"net/http"
)

// Migration is what the endpoint needs of the migration proxy (package
// migrate, wired by cmd/thriftd): its status, and a change of who answers
// reads and who takes writes.
type Migration interface {
	// Status is reported as JSON.
	Status() any
	// Set changes the settings; an empty value keeps the current one. The
	// error says why a value or a combination is refused.
	Set(reads, writes string) (any, error)
}

// migration answers GET /v1/migration: the origin, the read and write
// settings and the writes waiting in the durable log.
func (s *Server) migration(*http.Request) (any, error) {
	if s.o.Migration == nil {
		return nil, unsupported("a migration proxy (start thriftd with -origin)")
	}
	return s.o.Migration.Status(), nil
}

// setMigration answers POST /v1/migration?reads=origin|both|target&writes=both|target.
func (s *Server) setMigration(r *http.Request) (any, error) {
	if s.o.Migration == nil {
		return nil, unsupported("a migration proxy (start thriftd with -origin)")
	}
	q := r.URL.Query()
	reads, writes := q.Get("reads"), q.Get("writes")
	if reads == "" && writes == "" {
		return nil, badRequest("give reads=origin|both|target and/or writes=both|target")
	}
	v, err := s.o.Migration.Set(reads, writes)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return v, nil
}
