package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// Agent is an AI agent as natter answers it (docs/agents.md): a bot user bound to an HTTP
// endpoint. IntegrationMeta.Headers holds the headers' names with masked values.
type Agent struct {
	UID             string          `json:"uid"`
	AppID           string          `json:"appId"`
	Name            string          `json:"name"`
	Icon            string          `json:"icon"`
	IsActive        bool            `json:"isActive"`
	IntegrateWith   string          `json:"integrateWith"`
	IntegrationType string          `json:"integrationType"`
	IntegrationMeta AgentMeta       `json:"integrationMeta"`
	Instruction     string          `json:"instruction"`
	MetaData        json.RawMessage `json:"metaData"`
	Tools           []string        `json:"tools"`
	Actions         []string        `json:"actions"`
	HistoryLength   int             `json:"historyLength"`
	TimeoutSeconds  int             `json:"timeoutSeconds"`
	CreatedAt       int64           `json:"createdAt"`
	UpdatedAt       int64           `json:"updatedAt"`
}

// AgentMeta is where an agent's endpoint is and which headers natter sends it.
type AgentMeta struct {
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// AgentRequest is the body of CreateAgent and UpdateAgent; nil fields are not sent.
type AgentRequest struct {
	UID             *string        `json:"uid,omitempty"`
	Name            *string        `json:"name,omitempty"`
	Icon            *string        `json:"icon,omitempty"`
	IsActive        *bool          `json:"isActive,omitempty"`
	IntegrateWith   *string        `json:"integrateWith,omitempty"`
	IntegrationType *string        `json:"integrationType,omitempty"`
	IntegrationMeta *AgentMeta     `json:"integrationMeta,omitempty"`
	Instruction     *string        `json:"instruction,omitempty"`
	MetaData        map[string]any `json:"metaData,omitempty"`
	HistoryLength   *int           `json:"historyLength,omitempty"`
	TimeoutSeconds  *int           `json:"timeoutSeconds,omitempty"`
}

func agentPath(uid string) string { return "/ai-agents/agents/" + seg(uid) }

// CreateAgent creates an agent, and its bot user when it does not exist.
func (c *Client) CreateAgent(ctx context.Context, req AgentRequest) (*Agent, error) {
	return c.agentCall(ctx, http.MethodPost, "/ai-agents/agents", req)
}

// ListAgents lists the app's agents.
func (c *Client) ListAgents(ctx context.Context) ([]Agent, error) {
	var out []Agent
	if _, err := c.call(ctx, http.MethodGet, "/ai-agents/agents", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetAgent reads one agent.
func (c *Client) GetAgent(ctx context.Context, uid string) (*Agent, error) {
	return c.agentCall(ctx, http.MethodGet, agentPath(uid), nil)
}

// UpdateAgent changes the fields set in req (PUT).
func (c *Client) UpdateAgent(ctx context.Context, uid string, req AgentRequest) (*Agent, error) {
	return c.agentCall(ctx, http.MethodPut, agentPath(uid), req)
}

// PatchAgent is UpdateAgent with the hosted service's verb, PATCH.
func (c *Client) PatchAgent(ctx context.Context, uid string, req AgentRequest) (*Agent, error) {
	return c.agentCall(ctx, http.MethodPatch, agentPath(uid), req)
}

// DeleteAgent deletes an agent and its pending jobs; its user stays.
func (c *Client) DeleteAgent(ctx context.Context, uid string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, agentPath(uid), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func (c *Client) agentCall(ctx context.Context, method, path string, body any) (*Agent, error) {
	var a Agent
	if _, err := c.call(ctx, method, path, nil, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}
