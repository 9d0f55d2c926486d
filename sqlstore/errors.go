package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/sqliteread"
)

// errForeignKey is a row that a foreign key refuses: the statement that can meet one says
// what it means (users.go: a role deleted meanwhile).
var errForeignKey = errors.New("foreign key violation")

// mapErr normalises driver errors into chat's sentinels at the storage boundary: nobody above
// storage looks at a driver or a dialect. Errors that already carry a chat meaning pass.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *chat.Error
	if errors.As(err, &ce) || errors.Is(err, chat.ErrNotFound) || errors.Is(err, chat.ErrAlreadyExists) || errors.Is(err, errForeignKey) ||
		errors.Is(err, chat.ErrLimitReached) || errors.Is(err, chat.ErrUnavailable) || errors.Is(err, chat.ErrFileGone) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return chat.ErrNotFound
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The request's deadline passed while the database had it: to the client that is
		// the database being unavailable (or overloaded), not a bug.
		return fmt.Errorf("%w: %v", chat.ErrUnavailable, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", chat.ErrAlreadyExists, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: %v", chat.ErrUnavailable, err)
		}
		return err
	}
	var de *sqliteread.Error
	if errors.As(err, &de) {
		switch de.Primary() {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: %v", chat.ErrUnavailable, err)
		}
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505":
			return fmt.Errorf("%w: %v", chat.ErrAlreadyExists, err)
		case pe.Code == "23503":
			return fmt.Errorf("%w: %v", errForeignKey, err)
		case pe.Code[:2] == "08", pe.Code[:2] == "57", pe.Code[:2] == "53", pe.Code[:2] == "40":
			// connection exceptions, operator intervention (shutdown), insufficient resources,
			// and transaction rollbacks (a deadlock or serialization failure that outlived
			// its retries): the client may well succeed by retrying
			return fmt.Errorf("%w: %v", chat.ErrUnavailable, err)
		}
		return err
	}
	var ne net.Error
	var ce2 *pgconn.ConnectError
	if errors.As(err, &ce2) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, sql.ErrConnDone) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %v", chat.ErrUnavailable, err)
	}
	return err
}
