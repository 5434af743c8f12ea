package ldbstore

import (
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// metaAuth holds the roles and permissions of thriftd's
// PasswordAuthenticator and CassandraAuthorizer (package auth's Local
// document), beside the schema in the store's metadata, so that they live
// and are backed up with the data.
var metaAuth = []byte{prefixMeta, 'a', 'u', 't', 'h'}

// AuthBlob is the store's record of roles and permissions: an auth.Blob.
type AuthBlob struct{ st *Store }

// Auth returns the store's record of roles and permissions.
func (st *Store) Auth() AuthBlob { return AuthBlob{st} }

// Load returns the recorded document, or nil before the first Save.
func (b AuthBlob) Load() ([]byte, error) {
	raw, err := b.st.db.Get(metaAuth, nil)
	if err == leveldb.ErrNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read the roles: %w", b.st.dir, err)
	}
	return raw, nil
}

// Save records data durably (a synced write) before returning.
func (b AuthBlob) Save(data []byte) error {
	if err := b.st.db.Put(metaAuth, data, &opt.WriteOptions{Sync: true}); err != nil {
		return fmt.Errorf("%s: record the roles: %w", b.st.dir, err)
	}
	return nil
}
