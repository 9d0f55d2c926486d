package chat

import (
	"slices"
	"strings"
	"testing"
)

func TestAgentTargets(t *testing.T) {
	agents := map[string]bool{"bot": true, "bot2": true, "off": false}
	ents := func(uids ...string) []Entity {
		var out []Entity
		for _, u := range uids {
			out = append(out, Entity{UID: u})
		}
		return out
	}
	tests := []struct {
		name string
		m    Message
		want []string
	}{
		{"one-to-one to an agent", Message{Sender: "alice", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryMessage, Type: "text"}, []string{"bot"}},
		{"one-to-one to an inactive agent", Message{Sender: "alice", ReceiverType: ReceiverUser, Receiver: "off", Category: CategoryMessage, Type: "text"}, nil},
		{"one-to-one to a user", Message{Sender: "alice", ReceiverType: ReceiverUser, Receiver: "bob", Category: CategoryMessage, Type: "text"}, nil},
		{"the bot's own message", Message{Sender: "bot", ReceiverType: ReceiverUser, Receiver: "alice", Category: CategoryMessage, Type: "text"}, nil},
		{"a bot to another bot", Message{Sender: "bot2", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryMessage, Type: "text"}, nil},
		{"an inactive bot to a bot", Message{Sender: "off", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryMessage, Type: "text"}, nil},
		{"an image", Message{Sender: "alice", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryMessage, Type: "image"}, nil},
		{"a custom message", Message{Sender: "alice", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryCustom, Type: "poll"}, nil},
		{"group without mentions", Message{Sender: "alice", ReceiverType: ReceiverGroup, Receiver: "g", Category: CategoryMessage, Type: "text"}, nil},
		{"group mentions, in order, active only", Message{Sender: "alice", ReceiverType: ReceiverGroup, Receiver: "g", Category: CategoryMessage, Type: "text",
			Mentions: ents("bob", "bot2", "off", "bot")}, []string{"bot2", "bot"}},
		{"group: a bot mentioning a bot", Message{Sender: "bot", ReceiverType: ReceiverGroup, Receiver: "g", Category: CategoryMessage, Type: "text",
			Mentions: ents("bot2")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AgentTargets(&tt.m, agents); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got := AgentTargets(&Message{Sender: "a", ReceiverType: ReceiverUser, Receiver: "bot", Category: CategoryMessage, Type: "text"}, nil); got != nil {
		t.Errorf("an app without agents: %v", got)
	}
	many := map[string]bool{}
	var uids []string
	for i := range 9 {
		u := "b" + string(rune('a'+i))
		many[u] = true
		uids = append(uids, u)
	}
	if got := AgentTargets(&Message{Sender: "x", ReceiverType: ReceiverGroup, Category: CategoryMessage, Type: "text", Mentions: ents(uids...)}, many); len(got) != MaxAgentsPerMessage {
		t.Errorf("mentions past the cap: %v", got)
	}
}

func TestAgentFields(t *testing.T) {
	ok := func() Agent {
		return Agent{Name: "Bot", IntegrationType: IntegrationAgent, URL: "https://agents.example.com/x", HistoryLength: 20, TimeoutSeconds: 30}
	}
	tests := []struct {
		name    string
		private bool
		change  func(a *Agent)
		headers map[string]string
		field   string // "" = valid
	}{
		{"valid", false, func(*Agent) {}, nil, ""},
		{"no name", false, func(a *Agent) { a.Name = "" }, nil, "name"},
		{"long name", false, func(a *Agent) { a.Name = strings.Repeat("n", 101) }, nil, "name"},
		{"llm", false, func(a *Agent) { a.IntegrationType = "llm" }, nil, "integrationType"},
		{"no url", false, func(a *Agent) { a.URL = "" }, nil, "integrationMeta.url"},
		{"not a url", false, func(a *Agent) { a.URL = "agents.example.com" }, nil, "integrationMeta.url"},
		{"ftp", false, func(a *Agent) { a.URL = "ftp://agents.example.com" }, nil, "integrationMeta.url"},
		{"http", false, func(a *Agent) { a.URL = "http://agents.example.com/x" }, nil, "integrationMeta.url"},
		{"http allowed with private", true, func(a *Agent) { a.URL = "http://127.0.0.1:9/x" }, nil, ""},
		{"loopback", false, func(a *Agent) { a.URL = "https://127.0.0.1/x" }, nil, "integrationMeta.url"},
		{"localhost", false, func(a *Agent) { a.URL = "https://localhost/x" }, nil, "integrationMeta.url"},
		{"private", false, func(a *Agent) { a.URL = "https://10.1.2.3/x" }, nil, "integrationMeta.url"},
		{"credentials", false, func(a *Agent) { a.URL = "https://u:p@agents.example.com/x" }, nil, "integrationMeta.url"},
		{"fragment", false, func(a *Agent) { a.URL = "https://agents.example.com/x#y" }, nil, "integrationMeta.url"},
		{"long url", false, func(a *Agent) { a.URL = "https://agents.example.com/" + strings.Repeat("x", 2048) }, nil, "integrationMeta.url"},
		{"history", false, func(a *Agent) { a.HistoryLength = 101 }, nil, "historyLength"},
		{"negative history", false, func(a *Agent) { a.HistoryLength = -1 }, nil, "historyLength"},
		{"timeout 0", false, func(a *Agent) { a.TimeoutSeconds = 0 }, nil, "timeoutSeconds"},
		{"timeout 121", false, func(a *Agent) { a.TimeoutSeconds = 121 }, nil, "timeoutSeconds"},
		{"header", false, func(*Agent) {}, map[string]string{"Authorization": "Bearer x"}, ""},
		{"bad header name", false, func(*Agent) {}, map[string]string{"Bad Name": "x"}, "integrationMeta.headers"},
		{"reserved header", false, func(*Agent) {}, map[string]string{"content-type": "x"}, "integrationMeta.headers"},
		{"natter header", false, func(*Agent) {}, map[string]string{"X-Natter-Agent": "x"}, "integrationMeta.headers"},
		{"header with a newline", false, func(*Agent) {}, map[string]string{"X-Key": "a\r\nb"}, "integrationMeta.headers"},
		{"long header", false, func(*Agent) {}, map[string]string{"X-Key": strings.Repeat("k", 1025)}, "integrationMeta.headers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{cfg: Config{WebhookAllowPrivate: tt.private}}
			a := ok()
			tt.change(&a)
			fe := fieldErrors{}
			s.agentFields(fe, &a, tt.headers)
			if tt.field == "" && len(fe) > 0 || tt.field != "" && (len(fe) != 1 || fe[tt.field] == nil) {
				t.Errorf("got %v, want an error on %q only", fe, tt.field)
			}
		})
	}
}
