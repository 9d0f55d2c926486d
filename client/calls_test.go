package client_test

import (
	"context"
	"testing"

	"github.com/natter-chat/natter/client"
)

// callRoutes are the call routes, which TestCallEndpoints covers.
var callRoutes = map[string]bool{
	"POST /calls":                            true,
	"GET /calls":                             true,
	"GET /calls/{sessionId}":                 true,
	"PUT /calls/{sessionId}":                 true,
	"PATCH /calls/{sessionId}/type":          true,
	"GET /calls/{sessionId}/transcriptions":  true,
	"POST /calls/{sessionId}/transcriptions": true,
}

// TestCallEndpoints calls every call method and checks the request the server saw.
func TestCallEndpoints(t *testing.T) {
	ctx := context.Background()
	zero, yes := 0, true
	tests := []struct {
		name    string
		call    func(c *client.Client) error
		pattern string
		path    string
		query   string
		body    string
	}{
		{"InitiateCall", func(c *client.Client) error {
			_, err := c.InitiateCall(ctx, client.InitiateCallRequest{Receiver: "u2", ReceiverType: "user", Type: "audio"})
			return err
		}, "POST /calls", "/v3/calls", "", `{"receiver":"u2","receiverType":"user","type":"audio"}`},
		{"InitiateCall metadata", func(c *client.Client) error {
			_, err := c.InitiateCall(ctx, client.InitiateCallRequest{Receiver: "u2", ReceiverType: "user", Type: "audio", Metadata: []byte(`{"k":1}`)})
			return err
		}, "POST /calls", "/v3/calls", "", `{"receiver":"u2","receiverType":"user","type":"audio","metadata":{"k":1}}`},
		{"UpdateCall", func(c *client.Client) error {
			_, err := c.UpdateCall(ctx, "n1.a/b", client.CallOngoing)
			return err
		}, "PUT /calls/{sessionId}", "/v3/calls/n1.a%2Fb", "", `{"status":"ongoing"}`},
		{"ChangeCallType", func(c *client.Client) error {
			_, err := c.ChangeCallType(ctx, "s1", "video")
			return err
		}, "PATCH /calls/{sessionId}/type", "/v3/calls/s1/type", "", `{"type":"video"}`},
		{"ListCalls zero", func(c *client.Client) error {
			_, err := c.ListCalls(ctx, client.ListCallsParams{})
			return err
		}, "GET /calls", "/v3/calls", "", ""},
		{"ListCalls all", func(c *client.Client) error {
			_, err := c.ListCalls(ctx, client.ListCallsParams{Type: "audio", Mode: "call", Status: "ended", ReceiverType: "user", UID: "u1",
				ParticipantsCount: &zero, StartedAt: 5, EndedAt: 6, HasRecording: &yes, HasTranscription: &yes, Page: 2, PerPage: 10})
			return err
		}, "GET /calls", "/v3/calls", "endedAt=6&hasRecording=true&hasTranscription=true&mode=call&page=2&participantsCount=0&perPage=10&receiverType=user&startedAt=5&status=ended&type=audio&uid=u1", ""},
		{"GetCall", func(c *client.Client) error {
			_, err := c.GetCall(ctx, "s1")
			return err
		}, "GET /calls/{sessionId}", "/v3/calls/s1", "", ""},
		{"ListCallTranscriptions", func(c *client.Client) error {
			_, err := c.ListCallTranscriptions(ctx, "s1", 2, 5)
			return err
		}, "GET /calls/{sessionId}/transcriptions", "/v3/calls/s1/transcriptions", "page=2&perPage=5", ""},
		{"AddCallTranscription", func(c *client.Client) error {
			_, err := c.AddCallTranscription(ctx, "s1", client.AddTranscriptionRequest{StartTime: 1, EndTime: 2, TranscriptURL: "https://t.example/x.json"})
			return err
		}, "POST /calls/{sessionId}/transcriptions", "/v3/calls/s1/transcriptions", "", `{"startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x.json"}`},
	}
	f := newFake(t)
	c := f.client()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(c.OnBehalfOf("u1")); err != nil {
				t.Fatal(err)
			}
			got := f.last(t)
			if got.Pattern != tt.pattern || got.Path != tt.path || got.Query != tt.query {
				t.Errorf("request = %s %s?%s, want %s %s?%s", got.Pattern, got.Path, got.Query, tt.pattern, tt.path, tt.query)
			}
			if tt.body == "" {
				if got.Body != "" {
					t.Errorf("body = %q, want none", got.Body)
				}
			} else {
				sameJSON(t, got.Body, tt.body)
			}
		})
	}
}
