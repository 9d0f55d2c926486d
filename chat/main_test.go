package chat_test

import (
	"testing"

	"github.com/natter-chat/natter/internal/pgtest"
)

// The rules proven against a real store (internal/chattest) run on SQLite and PostgreSQL;
// pgtest.Main stops the PostgreSQL server they started.
func TestMain(m *testing.M) { pgtest.Main(m) }
