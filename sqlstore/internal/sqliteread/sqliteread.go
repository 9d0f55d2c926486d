// Package sqliteread reads a SQLite database through SQLite's own API, as modernc.org/sqlite
// transpiles it to Go, without database/sql.
//
// A page of 50 messages through database/sql cost twice what SQLite spent finding it
// (issue 39; bench/README.md, "The SQLite engines on natter's read"): the driver reads
// every column's name and declared type again for each query, takes the connection's
// mutex for every column of every row, and database/sql boxes each value and converts it
// by reflection into its destination. Here a connection is opened without SQLite's mutex
// (a Pool hands it to one goroutine at a time), keeps its statements prepared, and Scan
// reads each column straight into its destination.
//
// It reads the same file, through the same SQLite library and VFS, as natter's
// database/sql connections, so SQLite's locks and WAL see one process. It only reads: its
// connections are opened query_only.
package sqliteread

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// maxStmts bounds the statements a connection keeps prepared; past it a query is prepared
// for its one run. Callers send constant query texts, a few dozen of them.
const maxStmts = 512

// Error is an error SQLite returned.
type Error struct {
	Code int // SQLite's extended result code
	msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("sqlite: %s (%d)", e.msg, e.Code) }

// Primary is the error's primary result code (SQLITE_BUSY, SQLITE_IOERR, …).
func (e *Error) Primary() int { return e.Code & 0xff }

// ErrClosed is what a closed Pool answers.
var ErrClosed = errors.New("sqliteread: pool closed")

// Pool is up to size read connections to one database file.
type Pool struct {
	path    string
	pragmas []string
	idle    chan *conn
	slots   chan struct{} // one per connection open or being opened

	mu     sync.Mutex
	closed bool
}

// Open opens a pool of up to size connections to the database at path (a file name, not a
// URI), each set up with pragmas ("busy_timeout(10000)", …) and query_only. One connection
// is opened now, so that a path that cannot be read fails here.
func Open(path string, size int, pragmas ...string) (*Pool, error) {
	if size < 1 {
		size = 1
	}
	p := &Pool{path: path, pragmas: append(pragmas, "query_only(1)"), idle: make(chan *conn, size), slots: make(chan struct{}, size)}
	p.slots <- struct{}{}
	c, err := p.dial()
	if err != nil {
		return nil, err
	}
	p.idle <- c
	return p, nil
}

// Close closes the idle connections; those in use close when their rows do.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	for {
		select {
		case c := <-p.idle:
			c.close()
		default:
			return nil
		}
	}
}

func (p *Pool) get(ctx context.Context) (*conn, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		c, err := p.dial()
		if err != nil {
			<-p.slots
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Pool) put(c *conn) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		c.close()
		<-p.slots
		return
	}
	p.idle <- c // never blocks: no more connections exist than idle holds
}

// conn is one SQLite connection and its prepared statements. Every call into SQLite runs
// on its libc.TLS, which, like the connection, only one goroutine may use at a time.
type conn struct {
	tls   *libc.TLS
	db    uintptr
	stmts map[string]*stmt
}

// stmt is a prepared statement; params[i] is the argument SQL parameter i+1 binds (?n is
// argument n-1).
type stmt struct {
	p      uintptr
	cols   int
	params []int
	kept   bool // in its connection's stmts, so reset rather than finalised after a run
}

func (p *Pool) dial() (*conn, error) {
	tls := libc.NewTLS()
	c := &conn{tls: tls, stmts: map[string]*stmt{}}
	name, err := libc.CString(p.path)
	if err != nil {
		tls.Close()
		return nil, err
	}
	pdb := tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = *(*uintptr)(cmem(pdb))
	tls.Free(int(unsafe.Sizeof(uintptr(0))))
	libc.Xfree(tls, name)
	if rc != sqlite3.SQLITE_OK {
		err := c.error(rc)
		c.close()
		return nil, err
	}
	sqlite3.Xsqlite3_extended_result_codes(tls, c.db, 1)
	for _, pragma := range p.pragmas {
		if err := c.exec("PRAGMA " + pragma); err != nil {
			c.close()
			return nil, fmt.Errorf("sqliteread: PRAGMA %s: %w", pragma, err)
		}
	}
	return c, nil
}

func (c *conn) close() {
	for _, s := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, s.p)
	}
	c.stmts = nil
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

func (c *conn) error(rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		if m := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); m != "" && m != msg {
			msg += ": " + m
		}
	}
	return &Error{Code: int(rc), msg: msg}
}

// exec runs a statement of no arguments to its end (a PRAGMA that answers a row included).
func (c *conn) exec(query string) error {
	s, err := c.prepare(query, false)
	if err != nil {
		return err
	}
	defer sqlite3.Xsqlite3_finalize(c.tls, s.p)
	for {
		switch rc := sqlite3.Xsqlite3_step(c.tls, s.p); rc {
		case sqlite3.SQLITE_ROW:
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.error(rc)
		}
	}
}

// statement is query's prepared statement, prepared now and kept if there is room.
func (c *conn) statement(query string) (*stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	keep := len(c.stmts) < maxStmts
	s, err := c.prepare(query, keep)
	if err != nil {
		return nil, err
	}
	if keep {
		s.kept = true
		c.stmts[query] = s
	}
	return s, nil
}

func (c *conn) prepare(query string, persistent bool) (*stmt, error) {
	zsql, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, zsql)
	size := int(unsafe.Sizeof(uintptr(0)))
	pp := c.tls.Alloc(2 * size)
	defer c.tls.Free(2 * size)
	var flags uint32
	if persistent {
		flags = sqlite3.SQLITE_PREPARE_PERSISTENT
	}
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, zsql, -1, flags, pp, pp+uintptr(size)); rc != sqlite3.SQLITE_OK {
		return nil, c.error(rc)
	}
	p := *(*uintptr)(cmem(pp))
	if tail := libc.GoString(*(*uintptr)(cmem(pp + uintptr(size)))); strings.TrimSpace(tail) != "" {
		sqlite3.Xsqlite3_finalize(c.tls, p)
		return nil, fmt.Errorf("sqliteread: more than one statement in %q", query)
	}
	if p == 0 { // only a comment or white space
		return nil, fmt.Errorf("sqliteread: no statement in %q", query)
	}
	s := &stmt{p: p, cols: int(sqlite3.Xsqlite3_column_count(c.tls, p))}
	n := int(sqlite3.Xsqlite3_bind_parameter_count(c.tls, p))
	s.params = make([]int, n)
	for i := range n {
		s.params[i] = i
		name := libc.GoString(sqlite3.Xsqlite3_bind_parameter_name(c.tls, p, int32(i+1)))
		if len(name) > 1 && (name[0] == '?' || name[0] == '$') {
			if k, err := strconv.Atoi(name[1:]); err == nil && k >= 1 {
				s.params[i] = k - 1
				continue
			}
		}
		if name != "" {
			sqlite3.Xsqlite3_finalize(c.tls, p)
			return nil, fmt.Errorf("sqliteread: parameter %s: only numbered parameters are bound", name)
		}
	}
	return s, nil
}

func (c *conn) bind(s *stmt, args []any) error {
	for i, k := range s.params {
		if k >= len(args) {
			return fmt.Errorf("sqliteread: parameter ?%d has no argument (%d given)", k+1, len(args))
		}
		if err := c.bindOne(s.p, int32(i+1), args[k]); err != nil {
			return fmt.Errorf("sqliteread: argument ?%d: %w", k+1, err)
		}
	}
	return nil
}

func (c *conn) bindOne(p uintptr, i int32, v any) error {
	var rc int32
	switch v := v.(type) {
	case nil:
		rc = sqlite3.Xsqlite3_bind_null(c.tls, p, i)
	case int64:
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, p, i, v)
	case int:
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, p, i, int64(v))
	case int32:
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, p, i, int64(v))
	case bool:
		var b int64
		if v {
			b = 1
		}
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, p, i, b)
	case float64:
		rc = sqlite3.Xsqlite3_bind_double(c.tls, p, i, v)
	case string:
		// Copied by SQLite (SQLITE_TRANSIENT) from the TLS's stack, which is given back at once.
		n := len(v)
		buf := c.tls.Alloc(n + 1)
		if n > 0 {
			copy(unsafe.Slice((*byte)(cmem(buf)), n), v)
		}
		rc = sqlite3.Xsqlite3_bind_text(c.tls, p, i, buf, int32(n), sqlite3.SQLITE_TRANSIENT)
		c.tls.Free(n + 1)
	case []byte:
		if v == nil {
			rc = sqlite3.Xsqlite3_bind_null(c.tls, p, i)
			break
		}
		n := len(v)
		buf := c.tls.Alloc(n + 1)
		copy(unsafe.Slice((*byte)(cmem(buf)), n), v)
		rc = sqlite3.Xsqlite3_bind_blob(c.tls, p, i, buf, int32(n), sqlite3.SQLITE_TRANSIENT)
		c.tls.Free(n + 1)
	default:
		dv, err := driver.DefaultParameterConverter.ConvertValue(v)
		if err != nil {
			return err
		}
		switch dv.(type) {
		case nil, int64, float64, bool, string, []byte:
			return c.bindOne(p, i, dv)
		}
		return fmt.Errorf("cannot bind a %T", v)
	}
	if rc != sqlite3.SQLITE_OK {
		return c.error(rc)
	}
	return nil
}

// Rows is a query's result, read with Next and Scan as database/sql's. Close gives its
// connection back; Next does once the rows are done or failed.
type Rows struct {
	p    *Pool
	c    *conn
	s    *stmt
	ctx  context.Context
	err  error
	done bool

	stop    func() bool // unregisters the interrupt, if the context can end
	mu      sync.Mutex  // orders the interrupt against the connection's return
	settled bool
}

// Query runs query with args ($n or ?n placeholders bind args[n-1]).
func (p *Pool) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.statement(query)
	if err == nil {
		err = c.bind(s, args)
		if err != nil {
			c.release(s)
		}
	}
	if err != nil {
		p.put(c)
		return nil, err
	}
	r := &Rows{p: p, c: c, s: s, ctx: ctx}
	if ctx.Done() != nil {
		r.stop = context.AfterFunc(ctx, r.interrupt)
	}
	return r, nil
}

// interrupt stops the statement running on the rows' connection, unless the rows have
// already given it back. It runs on a goroutine of its own, so on a TLS of its own.
func (r *Rows) interrupt() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.settled {
		return
	}
	tls := libc.NewTLS()
	sqlite3.Xsqlite3_interrupt(tls, r.c.db)
	tls.Close()
}

// release readies s for its next run, or finalises it if it is not kept.
func (c *conn) release(s *stmt) {
	if !s.kept {
		sqlite3.Xsqlite3_finalize(c.tls, s.p)
		return
	}
	// Its arguments stay bound until the next run's replace them: since SQLite 3.54 a
	// "col = ?" term whose plan depends on the value being 0 or 1 expires the statement
	// when that parameter is cleared, and the next step would parse and plan it again
	// (modernc.org/sqlite's clearBindings explains it; its issue 264).
	sqlite3.Xsqlite3_reset(c.tls, s.p)
}

// Next steps to the next row, false when there is none or the query failed (Err).
func (r *Rows) Next() bool {
	if r.done {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
		return false
	}
	switch rc := sqlite3.Xsqlite3_step(r.c.tls, r.s.p); rc {
	case sqlite3.SQLITE_ROW:
		return true
	case sqlite3.SQLITE_DONE:
		r.Close()
		return false
	default:
		err := r.c.error(rc)
		if rc&0xff == sqlite3.SQLITE_INTERRUPT && r.ctx.Err() != nil {
			err = r.ctx.Err()
		}
		r.fail(err)
		return false
	}
}

func (r *Rows) fail(err error) {
	r.err = err
	r.Close()
}

// Err is the error that ended Next, if any.
func (r *Rows) Err() error { return r.err }

// Close gives the connection back; it may be called more than once.
func (r *Rows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	if r.stop != nil && !r.stop() {
		// The interrupt has run or is running: wait for it, then let it know it is too late.
		r.mu.Lock()
		r.settled = true
		r.mu.Unlock()
	}
	r.c.release(r.s)
	r.p.put(r.c)
	return nil
}

// Scan reads the current row's columns into dest, one destination per column: *int64,
// *int, *int32, *bool, *float64, *string, *[]byte, *any, an sql.Scanner, or a pointer to a
// type of one of those kinds. Like database/sql it refuses NULL into a type without one.
func (r *Rows) Scan(dest ...any) error {
	if r.done {
		return errors.New("sqliteread: Scan without a row")
	}
	if len(dest) != r.s.cols {
		return fmt.Errorf("sqliteread: %d destinations for %d columns", len(dest), r.s.cols)
	}
	for i, d := range dest {
		if err := r.c.column(r.s.p, int32(i), d); err != nil {
			return fmt.Errorf("sqliteread: column %d: %w", i, err)
		}
	}
	return nil
}

func (c *conn) column(p uintptr, i int32, dest any) error {
	t := sqlite3.Xsqlite3_column_type(c.tls, p, i)
	switch d := dest.(type) {
	case *int64:
		if t == sqlite3.SQLITE_INTEGER {
			*d = sqlite3.Xsqlite3_column_int64(c.tls, p, i)
			return nil
		}
	case *string:
		if t == sqlite3.SQLITE_TEXT {
			*d = c.text(p, i)
			return nil
		}
	case *int:
		if t == sqlite3.SQLITE_INTEGER {
			*d = int(sqlite3.Xsqlite3_column_int64(c.tls, p, i))
			return nil
		}
	case *sql.NullString:
		switch t {
		case sqlite3.SQLITE_NULL:
			*d = sql.NullString{}
			return nil
		case sqlite3.SQLITE_TEXT:
			*d = sql.NullString{String: c.text(p, i), Valid: true}
			return nil
		}
	case *sql.NullInt64:
		switch t {
		case sqlite3.SQLITE_NULL:
			*d = sql.NullInt64{}
			return nil
		case sqlite3.SQLITE_INTEGER:
			*d = sql.NullInt64{Int64: sqlite3.Xsqlite3_column_int64(c.tls, p, i), Valid: true}
			return nil
		}
	case *bool:
		if t == sqlite3.SQLITE_INTEGER {
			*d = sqlite3.Xsqlite3_column_int64(c.tls, p, i) != 0
			return nil
		}
	}
	return assign(dest, c.value(p, i, t))
}

// text is a TEXT column's value, copied out of SQLite's memory.
func (c *conn) text(p uintptr, i int32) string {
	z := sqlite3.Xsqlite3_column_text(c.tls, p, i)
	n := sqlite3.Xsqlite3_column_bytes(c.tls, p, i)
	if z == 0 || n == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(cmem(z)), n))
}

// value is a column as database/sql's drivers give it: int64, float64, string, []byte or nil.
func (c *conn) value(p uintptr, i, t int32) any {
	switch t {
	case sqlite3.SQLITE_INTEGER:
		return sqlite3.Xsqlite3_column_int64(c.tls, p, i)
	case sqlite3.SQLITE_FLOAT:
		return sqlite3.Xsqlite3_column_double(c.tls, p, i)
	case sqlite3.SQLITE_TEXT:
		return c.text(p, i)
	case sqlite3.SQLITE_BLOB:
		z := sqlite3.Xsqlite3_column_blob(c.tls, p, i)
		n := sqlite3.Xsqlite3_column_bytes(c.tls, p, i)
		b := make([]byte, n)
		if z != 0 {
			copy(b, unsafe.Slice((*byte)(cmem(z)), n))
		}
		return b
	}
	return nil
}

// assign stores a driver value into dest, converting as database/sql does for the kinds
// natter scans into.
func assign(dest, v any) error {
	switch d := dest.(type) {
	case sql.Scanner:
		return d.Scan(v)
	case *any:
		*d = v
		return nil
	case *[]byte:
		switch v := v.(type) {
		case nil:
			*d = nil
		case []byte:
			*d = v
		case string:
			*d = []byte(v)
		default:
			*d = fmt.Append(nil, v)
		}
		return nil
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("destination not a pointer: %T", dest)
	}
	e := rv.Elem()
	if v == nil {
		return fmt.Errorf("converting NULL to %s is unsupported", e.Kind())
	}
	switch e.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := asInt(v)
		if err != nil {
			return err
		}
		if e.OverflowInt(n) {
			return fmt.Errorf("%d overflows %s", n, e.Type())
		}
		e.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := asInt(v)
		if err != nil {
			return err
		}
		if n < 0 || e.OverflowUint(uint64(n)) {
			return fmt.Errorf("%d overflows %s", n, e.Type())
		}
		e.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		switch v := v.(type) {
		case float64:
			e.SetFloat(v)
		case int64:
			e.SetFloat(float64(v))
		case string:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return err
			}
			e.SetFloat(f)
		default:
			return fmt.Errorf("converting %T to %s", v, e.Type())
		}
	case reflect.String:
		switch v := v.(type) {
		case string:
			e.SetString(v)
		case []byte:
			e.SetString(string(v))
		case int64:
			e.SetString(strconv.FormatInt(v, 10))
		case float64:
			e.SetString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case reflect.Bool:
		n, err := asInt(v)
		if err != nil || (n != 0 && n != 1) {
			return fmt.Errorf("converting %v to bool", v)
		}
		e.SetBool(n == 1)
	case reflect.Slice:
		if e.Type().Elem().Kind() != reflect.Uint8 {
			return fmt.Errorf("unsupported destination %T", dest)
		}
		switch v := v.(type) {
		case []byte:
			e.SetBytes(v)
		case string:
			e.SetBytes([]byte(v))
		default:
			return fmt.Errorf("converting %T to %s", v, e.Type())
		}
	default:
		return fmt.Errorf("unsupported destination %T", dest)
	}
	return nil
}

func asInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case string:
		return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	case []byte:
		return strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
	case float64:
		if v == float64(int64(v)) {
			return int64(v), nil
		}
		return 0, fmt.Errorf("converting %v to an integer loses its fraction", v)
	}
	return 0, fmt.Errorf("converting %T to an integer", v)
}

// cmem is C memory (libc's, SQLite's) at p. It is never Go's heap, which the collector
// moves or frees, so holding it as a pointer is safe; written this way because vet cannot
// tell C memory from Go's.
func cmem(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// Row is a query of one row, run when it is scanned, so that a Row never scanned holds no
// connection.
type Row struct {
	p     *Pool
	ctx   context.Context
	query string
	args  []any
}

// QueryRow is Query for one row; Scan answers sql.ErrNoRows when there is none.
func (p *Pool) QueryRow(ctx context.Context, query string, args ...any) *Row {
	return &Row{p: p, ctx: ctx, query: query, args: args}
}

// Scan runs the query and scans its first row.
func (r *Row) Scan(dest ...any) error {
	rows, err := r.p.Query(r.ctx, r.query, r.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	return rows.Scan(dest...)
}
