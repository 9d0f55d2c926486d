package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// rateLimit counts the request against its app's limit for the operation's class, sets
// X-Rate-Limit and X-Rate-Limit-Remaining, and refuses it over the limit with 429,
// Retry-After and X-Rate-Limit-Reset, before anything is processed. A limit that cannot be
// counted (the shared count's database is unreachable) lets the request through.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	class := s.byPattern[r.Pattern].rate // routes.go: the endpoint's class
	d, err := s.svc.TakeRate(r.Context(), p, class)
	if err != nil {
		logger(r).Warn("rate limit not counted", "err", err, "app", p.App.ID, "request_id", requestID(r))
	}
	if d.Limit == 0 {
		return nil
	}
	h := w.Header()
	v := []string{strconv.Itoa(d.Limit), strconv.Itoa(d.Remaining)} // one allocation for both
	h["X-Rate-Limit"] = v[0:1:1]
	h["X-Rate-Limit-Remaining"] = v[1:2:2]
	if d.Allowed {
		return nil
	}
	s.opt.Metrics.rateLimit(class)
	h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfter, 10)}
	h["X-Rate-Limit-Reset"] = []string{strconv.FormatInt(d.Reset, 10)}
	return chat.RateLimited()
}
