package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// apiKeyJSON is the API key shape. apiKey is the full key where the caller holds it (on
// create and when named in the path) and masked in lists.
type apiKeyJSON struct {
	APIKey    string     `json:"apiKey"`
	Name      string     `json:"name"`
	Scope     chat.Scope `json:"scope"`
	CreatedAt int64      `json:"createdAt"`
	UpdatedAt int64      `json:"updatedAt,omitempty"`
}

func apiKeyOut(k chat.APIKey, shown string) apiKeyJSON {
	return apiKeyJSON{APIKey: shown, Name: k.Name, Scope: k.Scope, CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt}
}

type apiKeyRequest struct {
	Name  *string     `json:"name"`
	Scope *chat.Scope `json:"scope"`
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req apiKeyRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.APIKeyCreate{}
	if req.Name != nil {
		in.Name = *req.Name
	}
	if req.Scope != nil {
		in.Scope = *req.Scope
	}
	k, err := s.svc.CreateAPIKey(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeData(w, r, apiKeyOut(k.APIKey, k.Value), nil)
	return nil
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.APIKeyQuery{Scope: chat.Scope(q.str("scope")), SearchKey: q.str("searchKey"), Page: q.page()}
	if err := q.err(); err != nil {
		return err
	}
	keys, total, err := s.svc.ListAPIKeys(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]apiKeyJSON, len(keys))
	for i, k := range keys {
		out[i] = apiKeyOut(k, k.Masked())
	}
	writeData(w, r, out, pageMeta(f.Page, len(out), total))
	return nil
}

func (s *Server) getAPIKey(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	value := r.PathValue("apiKey")
	k, err := s.svc.APIKey(r.Context(), p, value)
	if err != nil {
		return err
	}
	writeData(w, r, apiKeyOut(k, value), nil)
	return nil
}

func (s *Server) updateAPIKey(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req apiKeyRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	value := r.PathValue("apiKey")
	k, err := s.svc.UpdateAPIKey(r.Context(), p, value, chat.APIKeyChange{Name: req.Name, Scope: req.Scope})
	if err != nil {
		return err
	}
	writeData(w, r, apiKeyOut(k, value), nil)
	return nil
}

func (s *Server) deleteAPIKey(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	k, err := s.svc.DeleteAPIKey(r.Context(), p, r.PathValue("apiKey"))
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "API Key " + k.Masked() + " has been deleted successfully."}, nil)
	return nil
}
