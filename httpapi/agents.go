package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// AI agents (docs/agents.md): the hosted BYO agents' shapes, with natter's additions
// (uid on create, historyLength, timeoutSeconds) marked in the contract. The endpoint's
// headers are never answered: their names are, with masked values.

type agentMetaJSON struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

type agentJSON struct {
	UID             string          `json:"uid"`
	AppID           string          `json:"appId"`
	Name            string          `json:"name"`
	Icon            string          `json:"icon"`
	IsActive        bool            `json:"isActive"`
	IntegrateWith   string          `json:"integrateWith"`
	IntegrationType string          `json:"integrationType"`
	IntegrationMeta agentMetaJSON   `json:"integrationMeta"`
	Instruction     string          `json:"instruction"`
	MetaData        json.RawMessage `json:"metaData"`
	Tools           []string        `json:"tools"`
	Actions         []string        `json:"actions"`
	HistoryLength   int             `json:"historyLength"`
	TimeoutSeconds  int             `json:"timeoutSeconds"`
	CreatedAt       int64           `json:"createdAt"`
	UpdatedAt       int64           `json:"updatedAt"`
}

// maskedHeader stands for a header's value in answers.
const maskedHeader = "********"

func agentOut(a chat.Agent) agentJSON {
	out := agentJSON{UID: a.UID, AppID: a.AppID, Name: a.Name, Icon: a.Icon, IsActive: a.IsActive, IntegrateWith: a.IntegrateWith,
		IntegrationType: a.IntegrationType, IntegrationMeta: agentMetaJSON{URL: a.URL, Headers: map[string]string{}},
		Instruction: a.Instruction, MetaData: a.Metadata, Tools: []string{}, Actions: []string{},
		HistoryLength: a.HistoryLength, TimeoutSeconds: a.TimeoutSeconds, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if len(out.MetaData) == 0 {
		out.MetaData = json.RawMessage(`{}`)
	}
	for _, h := range a.HeaderNames {
		out.IntegrationMeta.Headers[h] = maskedHeader
	}
	return out
}

type agentRequest struct {
	UID             *string `json:"uid"`
	Name            *string `json:"name"`
	Icon            *string `json:"icon"`
	IsActive        *bool   `json:"isActive"`
	IntegrateWith   *string `json:"integrateWith"`
	IntegrationType *string `json:"integrationType"`
	IntegrationMeta *struct {
		URL     *string            `json:"url"`
		Headers *map[string]string `json:"headers"`
	} `json:"integrationMeta"`
	Instruction    *string         `json:"instruction"`
	MetaData       json.RawMessage `json:"metaData"`
	Tools          []string        `json:"tools"`
	Actions        []string        `json:"actions"`
	HistoryLength  *int            `json:"historyLength"`
	TimeoutSeconds *int            `json:"timeoutSeconds"`
}

// check refuses what natter's agents do not have: tools and actions belong to the endpoint.
func (req agentRequest) check() error {
	if len(req.Tools) > 0 {
		return chat.InvalidField("tools", "natter's agents have no tools of natter's: the agent's endpoint uses its own.")
	}
	if len(req.Actions) > 0 {
		return chat.InvalidField("actions", "natter's agents have no actions of natter's: the agent's endpoint uses its own.")
	}
	return nil
}

func (req agentRequest) url() *string {
	if req.IntegrationMeta == nil {
		return nil
	}
	return req.IntegrationMeta.URL
}

// headers are the sent headers; nil when not sent, an empty map to remove them.
func (req agentRequest) headers() map[string]string {
	if req.IntegrationMeta == nil || req.IntegrationMeta.Headers == nil {
		return nil
	}
	if *req.IntegrationMeta.Headers == nil {
		return map[string]string{}
	}
	return *req.IntegrationMeta.Headers
}

func (s *Server) createAgent(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req agentRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	a, err := s.svc.Agents().CreateAgent(r.Context(), p, chat.AgentCreate{UID: deref(req.UID), Name: deref(req.Name), Icon: deref(req.Icon),
		IsActive: req.IsActive, IntegrateWith: deref(req.IntegrateWith), IntegrationType: deref(req.IntegrationType), URL: deref(req.url()),
		Headers: req.headers(), Instruction: deref(req.Instruction), Metadata: req.MetaData, HistoryLength: req.HistoryLength,
		TimeoutSeconds: req.TimeoutSeconds})
	if err != nil {
		return err
	}
	writeData(w, r, agentOut(a), nil)
	return nil
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	as, err := s.svc.Agents().List(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]agentJSON, len(as))
	for i, a := range as {
		out[i] = agentOut(a)
	}
	writeData(w, r, out, nil)
	return nil
}

func (s *Server) getAgent(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	a, err := s.svc.Agents().Agent(r.Context(), p, r.PathValue("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, agentOut(a), nil)
	return nil
}

// updateAgent is PUT (natter's) and PATCH (the hosted service's): a partial update either way.
func (s *Server) updateAgent(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req agentRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	if req.UID != nil {
		uid, _ := chat.NormalizeID(*req.UID)
		if cur, _ := chat.NormalizeID(r.PathValue("uid")); uid != cur {
			return chat.InvalidField("uid", "The uid of an agent cannot change.")
		}
	}
	a, err := s.svc.Agents().UpdateAgent(r.Context(), p, r.PathValue("uid"), chat.AgentChange{Name: req.Name, Icon: req.Icon, IsActive: req.IsActive,
		IntegrateWith: req.IntegrateWith, IntegrationType: req.IntegrationType, URL: req.url(), Headers: req.headers(),
		Instruction: req.Instruction, Metadata: req.MetaData, HistoryLength: req.HistoryLength, TimeoutSeconds: req.TimeoutSeconds})
	if err != nil {
		return err
	}
	writeData(w, r, agentOut(a), nil)
	return nil
}

func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.Agents().DeleteAgent(r.Context(), p, r.PathValue("uid")); err != nil {
		return err
	}
	uid, _ := chat.NormalizeID(r.PathValue("uid"))
	writeData(w, r, success{true, "The agent " + uid + " has been deleted successfully."}, nil)
	return nil
}
