package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// chartDays is how many days the overview's chart shows.
const chartDays = 14

type overviewData struct {
	Users, Groups, Today int64
	RateLimitedToday     int64 // requests refused over the rate limits today, on every node
	ActiveToday          int64 // users active today (UTC), as GET /stats counts them
	PeakToday            int64 // the most users connected at once today
	OnlineNow            int   // users online now, on every node (their presence)
	SocketsShown         bool
	Sockets              int64
	DeadDeliveries       int
	MoreDead             bool
	Days                 []chat.DayCount
	Chart                chart
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request, q *request) error {
	ctx := r.Context()
	var d overviewData
	_, users, err := c.svc.ListUsers(ctx, q.p, chat.UserQuery{Page: chat.Page{Number: 1, PerPage: 1}})
	if err != nil {
		return err
	}
	_, groups, err := c.svc.ListGroups(ctx, q.p, chat.GroupQuery{Page: chat.Page{Number: 1, PerPage: 1}})
	if err != nil {
		return err
	}
	if d.Days, err = c.svc.Console().DailyMessages(ctx, q.p, chartDays); err != nil {
		return err
	}
	d.Users, d.Groups, d.Today = int64(users), int64(groups), d.Days[len(d.Days)-1].Messages
	d.RateLimitedToday = d.Days[len(d.Days)-1].RateLimited
	day := d.Days[len(d.Days)-1].Day
	usage, err := c.svc.Usage().UsageMetrics(ctx, q.p, chat.StatsWindow{FromMillis: day * 1000, ToMillis: (day + 86400) * 1000, From: day, To: day + 86400})
	if err != nil {
		return err
	}
	d.ActiveToday, d.PeakToday = usage.ActiveUsers, usage.ConcurrentUsers
	if _, d.OnlineNow, err = c.svc.ListUsers(ctx, q.p, chat.UserQuery{Statuses: []string{"available"}, Page: chat.Page{Number: 1, PerPage: 1}}); err != nil {
		return err
	}
	if c.opt.Sockets != nil {
		d.SocketsShown, d.Sockets = true, c.opt.Sockets()
	}
	if d.DeadDeliveries, d.MoreDead, err = c.deadDeliveries(r, q, 100); err != nil {
		return err
	}
	d.Chart = barChart(d.Days)
	c.show(w, r, q, "overview", q.page("Overview", "overview", d))
	return nil
}

// usersPerPage is the users list's page size.
const usersPerPage = 50

type usersData struct {
	Query      string
	All        bool
	Users      []chat.User
	Total      int
	Prev, Next string
}

func (c *Console) users(w http.ResponseWriter, r *http.Request, q *request) error {
	d := usersData{Query: strings.TrimSpace(r.URL.Query().Get("q")), All: r.URL.Query().Get("all") == "1"}
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(1, min(n, 10000))
	uq := chat.UserQuery{SearchKey: d.Query, Page: chat.Page{Number: n, PerPage: usersPerPage}}
	if d.All {
		uq.Deactivated = chat.WithDeactivated
	}
	var err error
	if d.Users, d.Total, err = c.svc.ListUsers(r.Context(), q.p, uq); err != nil {
		return err
	}
	link := func(p int) string {
		v := url.Values{"page": {strconv.Itoa(p)}}
		if d.Query != "" {
			v.Set("q", d.Query)
		}
		if d.All {
			v.Set("all", "1")
		}
		return Prefix + "/users?" + v.Encode()
	}
	if n > 1 {
		d.Prev = link(n - 1)
	}
	if n*usersPerPage < d.Total {
		d.Next = link(n + 1)
	}
	c.show(w, r, q, "users", q.page("Users", "users", d))
	return nil
}

func (c *Console) createUser(w http.ResponseWriter, r *http.Request, q *request) error {
	u, err := c.svc.CreateUser(r.Context(), q.p, chat.UserCreate{UID: r.PostFormValue("uid"), Name: r.PostFormValue("name"),
		Role: strings.TrimSpace(r.PostFormValue("role"))})
	if err != nil {
		if q.retry(err, r) {
			return c.users(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/users/"+url.PathEscape(u.UID))
	return nil
}

type userData struct {
	User     chat.User
	Tokens   []chat.AuthToken
	NewToken string
}

func (c *Console) user(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderUser(w, r, q, r.PathValue("uid"), "")
}

func (c *Console) renderUser(w http.ResponseWriter, r *http.Request, q *request, uid, newToken string) error {
	u, err := c.svc.Console().ConsoleUser(r.Context(), q.p, uid)
	if err != nil {
		return err
	}
	d := userData{User: u, NewToken: newToken}
	if u.Active() {
		if d.Tokens, _, err = c.svc.ListAuthTokens(r.Context(), q.p, u.UID, chat.Page{Number: 1, PerPage: chat.MaxPerPage}); err != nil {
			return err
		}
	}
	c.show(w, r, q, "user", q.page("User "+u.Name, "users", d))
	return nil
}

func (c *Console) updateUser(w http.ResponseWriter, r *http.Request, q *request) error {
	name, role := r.PostFormValue("name"), strings.TrimSpace(r.PostFormValue("role"))
	u, err := c.svc.UpdateUser(r.Context(), q.p, r.PathValue("uid"), chat.UserChange{Name: &name, Role: &role})
	if err != nil {
		if chat.ErrorCode(err) != chat.CodeUIDNotFound && q.retry(err, r) {
			return c.user(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/users/"+url.PathEscape(u.UID))
	return nil
}

func (c *Console) deactivateUser(deactivate bool) func(w http.ResponseWriter, r *http.Request, q *request) error {
	return func(w http.ResponseWriter, r *http.Request, q *request) error {
		u, err := c.svc.Console().ConsoleUser(r.Context(), q.p, r.PathValue("uid"))
		if err != nil {
			return err
		}
		if _, err := c.svc.SetUsersDeactivated(r.Context(), q.p, "uid", []string{u.UID}, deactivate); err != nil {
			return err
		}
		c.redirect(w, r, Prefix+"/users/"+url.PathEscape(u.UID))
		return nil
	}
}

// createToken shows the new token on the page it answers with (never in a URL): it is shown
// only once.
func (c *Console) createToken(w http.ResponseWriter, r *http.Request, q *request) error {
	t, err := c.svc.CreateAuthToken(r.Context(), q.p, r.PathValue("uid"), chat.AuthTokenCreate{Force: true, Platform: "console"})
	if err != nil {
		return err
	}
	return c.renderUser(w, r, q, t.UID, t.Value)
}

func (c *Console) deleteToken(w http.ResponseWriter, r *http.Request, q *request) error {
	uid := r.PathValue("uid")
	if err := c.svc.Console().DeleteAuthTokenHash(r.Context(), q.p, uid, r.PostFormValue("token")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/users/"+url.PathEscape(uid))
	return nil
}

type keysData struct {
	Keys                      []chat.APIKey
	Own                       string // the session's key's hash: not deletable here
	NewKey, NewName, NewScope string
}

func (c *Console) keys(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderKeys(w, r, q, keysData{})
}

func (c *Console) renderKeys(w http.ResponseWriter, r *http.Request, q *request, d keysData) error {
	var err error
	if d.Keys, _, err = c.svc.ListAPIKeys(r.Context(), q.p, chat.APIKeyQuery{Page: chat.Page{Number: 1, PerPage: chat.MaxAPIKeysPerApp}}); err != nil {
		return err
	}
	d.Own = q.p.KeyHash
	c.show(w, r, q, "keys", q.page("API keys", "keys", d))
	return nil
}

// createKey shows the new key on the page it answers with, once.
func (c *Console) createKey(w http.ResponseWriter, r *http.Request, q *request) error {
	k, err := c.svc.CreateAPIKey(r.Context(), q.p, chat.APIKeyCreate{Name: r.PostFormValue("name"), Scope: chat.Scope(r.PostFormValue("scope"))})
	if err != nil {
		if q.retry(err, r) {
			return c.keys(w, r, q)
		}
		return err
	}
	return c.renderKeys(w, r, q, keysData{NewKey: k.Value, NewName: k.Name, NewScope: string(k.Scope)})
}

func (c *Console) deleteKey(w http.ResponseWriter, r *http.Request, q *request) error {
	if _, err := c.svc.Console().DeleteAPIKeyHash(r.Context(), q.p, r.PostFormValue("key")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/keys")
	return nil
}
