package console

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/natter-chat/natter/chat"
)

//go:embed templates
var templates embed.FS

// page is what the layout renders: the section's title, the session's app and CSRF token
// (empty when signed out), a notice or error, and the page's own data.
type page struct {
	Title  string
	Nav    string // users, keys, overview: the current section, marked in the navigation
	App    string
	CSRF   string
	Notice string
	Error  string
	Detail []string   // the error's field messages
	Form   url.Values // what a form sent, shown again after an error
	Data   any
}

type pageTemplate = template.Template

var funcs = template.FuncMap{
	"date": func(unix int64) string {
		if unix == 0 {
			return ""
		}
		return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04 UTC")
	},
	"millis": func(ms int64) string {
		if ms == 0 {
			return ""
		}
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"scopes": func() []string { return []string{"participant", "moderator", "admin"} },
	"day":    func(unix int64) string { return time.Unix(unix, 0).UTC().Format("Jan 2") },
}

func parsePages() map[string]*pageTemplate {
	out := map[string]*pageTemplate{}
	for _, name := range []string{"signin", "status", "overview", "users", "user", "keys", "webhooks", "webhook", "groups", "group", "messages", "roles", "moderation", "notifications",
		"role", "grouppermissions"} {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templates,
			"templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// withSession fills the page's session fields.
func (q *request) page(title, nav string, data any) page {
	return page{Title: title, Nav: nav, App: q.p.App.ID, CSRF: q.csrf, Data: data, Error: q.errMsg, Detail: q.details, Form: q.form}
}

// render writes a page whole, or a 500 when its template fails (a bug).
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, p); err != nil {
		c.log.Error("console template", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if _, err := b.WriteTo(w); err != nil {
		c.log.Debug("console write", "err", err)
	}
}

// status shows a page that only says what happened.
func (c *Console) status(w http.ResponseWriter, status int, title, msg string) {
	c.render(w, nil, status, "status", page{Title: title, Error: msg})
}

func (c *Console) forbidden(w http.ResponseWriter, msg string) {
	c.status(w, http.StatusForbidden, "Refused", msg)
}

// fail shows a service error: its message (safe for users) with the field details and the
// status of its kind; an internal error is logged and shown as such.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, details, ok := describe(err)
	if !ok {
		c.log.Error("console", "method", r.Method, "path", r.URL.Path, "err", err)
		c.status(w, http.StatusInternalServerError, "Something went wrong", "Something went wrong. Please try again later.")
		return
	}
	title := "Refused"
	if status == http.StatusNotFound {
		title = "Not found"
	}
	c.render(w, r, status, "status", page{Title: title, Error: msg, Detail: details})
}

// describe is what a page says of a service error, and its status; ok is false for an
// internal error, whose text is never shown.
func describe(err error) (status int, msg string, details []string, ok bool) {
	var e *chat.Error
	if !errors.As(err, &e) || e.Kind() == chat.KindInternal || e.Kind() == chat.KindUnavailable {
		return http.StatusInternalServerError, "", nil, false
	}
	for field, msgs := range e.Details {
		for _, m := range msgs {
			details = append(details, field+": "+m)
		}
	}
	sort.Strings(details)
	status = map[chat.Kind]int{chat.KindInvalid: 400, chat.KindUnauthenticated: 401, chat.KindForbidden: 403,
		chat.KindNotFound: 404, chat.KindConflict: 409, chat.KindTooLarge: 413, chat.KindRateLimited: 429}[e.Kind()]
	if status == 0 {
		status = http.StatusBadRequest
	}
	msg = e.Message
	if len(details) > 0 && msg == chat.ValidationMessage {
		msg = "Please correct the form: " + strings.Join(details, "; ")
		details = nil
	}
	return status, msg, details, true
}

// retry prepares a form's page to be shown again after err: with the error, the status of
// its kind and the values the form sent. It reports false for an internal error, which the
// caller returns instead.
func (q *request) retry(err error, r *http.Request) bool {
	status, msg, details, ok := describe(err)
	if !ok {
		return false
	}
	q.status, q.errMsg, q.details, q.form = status, msg, details, r.PostForm
	return true
}

// show renders a signed-in page with the request's status (200 unless a form is shown
// again after an error).
func (c *Console) show(w http.ResponseWriter, r *http.Request, q *request, name string, p page) {
	status := q.status
	if status == 0 {
		status = http.StatusOK
	}
	c.render(w, r, status, name, p)
}
