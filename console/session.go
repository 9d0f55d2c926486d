package console

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/natter-chat/natter/chat"
)

// Cookie names. The session cookie holds chat's signed session (the app and the hash of the
// key signed in with, never the key); the sign-in cookie holds the random value the sign-in
// form must echo, so that a form posted from elsewhere cannot sign a browser in.
const (
	sessionCookie = "natter_console"
	signInCookie  = "natter_console_signin"
	csrfHeader    = "X-CSRF-Token"
	csrfField     = "csrf"
)

// request is what an authenticated page handler gets.
type request struct {
	session chat.ConsoleSession
	p       chat.Principal
	csrf    string
	// A form shown again after an error (retry): the status, the error and what was sent.
	status  int
	errMsg  string
	details []string
	form    url.Values
}

// authed checks the session cookie, renews it (the idle expiry slides), and on anything but
// GET checks the CSRF token, sent as the X-CSRF-Token header (htmx) or the csrf form field.
func (c *Console) authed(h func(w http.ResponseWriter, r *http.Request, q *request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(sessionCookie)
		if err != nil {
			c.toSignIn(w, r)
			return
		}
		cs, p, err := c.svc.Console().OpenConsoleSession(r.Context(), ck.Value, c.opt.Idle, c.opt.Max)
		if chat.ErrConsoleSession(err) {
			c.clearCookie(w, r, sessionCookie)
			c.toSignIn(w, r)
			return
		}
		if err != nil {
			c.fail(w, r, err)
			return
		}
		q := &request{session: cs, p: p}
		if q.csrf, err = c.svc.Console().ConsoleCSRF(r.Context(), cs); err != nil {
			c.fail(w, r, err)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			sent := r.Header.Get(csrfHeader)
			if sent == "" {
				sent = r.PostFormValue(csrfField)
			}
			if !hmac.Equal([]byte(sent), []byte(q.csrf)) {
				c.forbidden(w, "This form is out of date or did not come from the console. Reload the page and try again.")
				return
			}
		}
		if err := c.setSession(w, r, cs); err != nil {
			c.fail(w, r, err)
			return
		}
		if err := h(w, r, q); err != nil {
			c.fail(w, r, err)
		}
	})
}

// toSignIn sends a request without a valid session to the sign-in page. An htmx request is
// told to load it as a whole page (HX-Redirect), never to swap it into the current one: the
// page's <body> carries the old session's CSRF token for htmx, and only a full load replaces
// it. (A 303 would not do: the browser follows it inside the XHR and htmx never sees it.)
// A plain browser's GET gets the 303; its form post, a page saying the session ended.
func (c *Console) toSignIn(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Header.Get("HX-Request") != "":
		w.Header().Set("HX-Redirect", Prefix+"/signin")
		w.WriteHeader(http.StatusNoContent)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		c.status(w, http.StatusUnauthorized, "Signed out", "Your console session has ended. Sign in again.")
	default:
		http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
	}
}

func (c *Console) setSession(w http.ResponseWriter, r *http.Request, cs chat.ConsoleSession) error {
	v, err := c.svc.Console().SealConsoleSession(r.Context(), cs)
	if err != nil {
		return err
	}
	http.SetCookie(w, c.cookie(r, sessionCookie, v, 0))
	return nil
}

// cookie is a console cookie: HTTP-only, SameSite=Strict, limited to /console, Secure when
// the request came over TLS; maxAge 0 makes a browser-session cookie (the server decides
// expiry), -1 deletes it.
func (c *Console) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: Prefix, MaxAge: maxAge, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode}
}

func (c *Console) clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, c.cookie(r, name, "", -1))
}

type signInData struct {
	Token string
	AppID string
	Error string
}

func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	c.renderSignIn(w, r, http.StatusOK, signInData{})
}

// renderSignIn shows the sign-in form with a fresh sign-in token in its cookie and field.
func (c *Console) renderSignIn(w http.ResponseWriter, r *http.Request, status int, d signInData) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	d.Token = hex.EncodeToString(b[:])
	http.SetCookie(w, c.cookie(r, signInCookie, d.Token, int((10*time.Minute)/time.Second)))
	c.render(w, r, status, "signin", page{Title: "Sign in", Error: d.Error, Data: d})
}

func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	ck, err := r.Cookie(signInCookie)
	if err != nil || !hmac.Equal([]byte(ck.Value), []byte(r.PostFormValue(csrfField))) {
		c.forbidden(w, "This sign-in form is out of date or did not come from the console. Reload the page and try again.")
		return
	}
	addr := clientAddr(r)
	if c.fails.blocked(addr) {
		c.log.Warn("console sign-in refused: too many failures from this address", "addr", addr)
		c.status(w, http.StatusTooManyRequests, "Too many attempts", "Too many failed sign-ins from this address. Wait a minute and try again.")
		return
	}
	appID := r.PostFormValue("appId")
	cs, _, err := c.svc.Console().ConsoleSignIn(r.Context(), appID, r.PostFormValue("apiKey"))
	if err != nil {
		c.fails.fail(addr)
		msg := "No app with that id has that API key."
		var e *chat.Error
		switch code := chat.ErrorCode(err); {
		case code == chat.CodeNoAccess && errors.As(err, &e):
			msg = e.Message // an authOnly key: say why
		case code == chat.CodeInvalidAppID, code == chat.CodeAPIKeyNotFound, code == chat.CodeEmptyAPIKey:
		default:
			c.fail(w, r, err)
			return
		}
		c.log.Info("console sign-in refused", "app", appID, "code", chat.ErrorCode(err))
		c.renderSignIn(w, r, http.StatusUnauthorized, signInData{AppID: appID, Error: msg})
		return
	}
	if err := c.setSession(w, r, cs); err != nil {
		c.fail(w, r, err)
		return
	}
	c.clearCookie(w, r, signInCookie)
	c.log.Info("console sign-in", "app", cs.App)
	c.reload(w, r, Prefix+"/")
}

func (c *Console) signOut(w http.ResponseWriter, r *http.Request, _ *request) error {
	w.Header().Del("Set-Cookie") // authed renewed it
	c.clearCookie(w, r, sessionCookie)
	c.reload(w, r, Prefix+"/signin")
	return nil
}

// reload answers a sign-in or sign-out: a 303 to the page, or for htmx a whole-page load of
// it (HX-Redirect), so that the new page's <body> carries the new session's CSRF token, or
// none.
func (c *Console) reload(w http.ResponseWriter, r *http.Request, to string) {
	if r.Header.Get("HX-Request") != "" {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// redirect answers a form post with a 303 to a page, or tells htmx to load it.
func (c *Console) redirect(w http.ResponseWriter, r *http.Request, to string) {
	if r.Header.Get("HX-Request") != "" {
		w.Header().Set("HX-Location", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
