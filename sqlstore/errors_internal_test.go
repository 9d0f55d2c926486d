package sqlstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/natter-chat/natter/chat"
)

// TestMapErrPostgres: PostgreSQL's error classes reach the service as chat's sentinels — what
// a retry may cure is ErrUnavailable (503), a duplicate is ErrAlreadyExists, anything else
// stays itself (500).
func TestMapErrPostgres(t *testing.T) {
	for code, want := range map[string]error{
		"23505": chat.ErrAlreadyExists, // unique violation
		"40P01": chat.ErrUnavailable,   // deadlock that outlived the batch's retries
		"40001": chat.ErrUnavailable,   // serialization failure
		"57P01": chat.ErrUnavailable,   // admin shutdown
		"08006": chat.ErrUnavailable,   // connection failure
		"53300": chat.ErrUnavailable,   // too many connections
		"42P01": nil,                   // undefined table: a bug, not the client's to retry
	} {
		err := mapErr(fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: code}))
		for _, sentinel := range []error{chat.ErrAlreadyExists, chat.ErrUnavailable} {
			if errors.Is(err, sentinel) != (sentinel == want) {
				t.Errorf("%s: %v, want %v", code, err, want)
			}
		}
	}
}
