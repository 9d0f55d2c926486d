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
	tests := []endpointCase{
		{"InitiateCall", "u1", func(c *client.Client) error {
			_, err := c.InitiateCall(ctx, client.InitiateCallRequest{Receiver: "u2", ReceiverType: "user", Type: "audio"})
			return err
		}, "POST /calls", "/v3/calls", "", nil, `{"receiver":"u2","receiverType":"user","type":"audio"}`},
		{"InitiateCall metadata", "u1", func(c *client.Client) error {
			_, err := c.InitiateCall(ctx, client.InitiateCallRequest{Receiver: "u2", ReceiverType: "user", Type: "audio", Metadata: []byte(`{"k":1}`)})
			return err
		}, "POST /calls", "/v3/calls", "", nil, `{"receiver":"u2","receiverType":"user","type":"audio","metadata":{"k":1}}`},
		{"UpdateCall", "u1", func(c *client.Client) error {
			_, err := c.UpdateCall(ctx, "n1.a/b", client.CallOngoing)
			return err
		}, "PUT /calls/{sessionId}", "/v3/calls/n1.a%2Fb", "", map[string]string{"sessionId": "n1.a/b"}, `{"status":"ongoing"}`},
		{"ChangeCallType", "u1", func(c *client.Client) error {
			_, err := c.ChangeCallType(ctx, "s1", "video")
			return err
		}, "PATCH /calls/{sessionId}/type", "/v3/calls/s1/type", "", map[string]string{"sessionId": "s1"}, `{"type":"video"}`},
		{"ListCalls zero", "u1", func(c *client.Client) error {
			_, err := c.ListCalls(ctx, client.ListCallsParams{})
			return err
		}, "GET /calls", "/v3/calls", "", nil, ""},
		{"ListCalls all", "u1", func(c *client.Client) error {
			_, err := c.ListCalls(ctx, client.ListCallsParams{Type: "audio", Mode: "call", Status: "ended", ReceiverType: "user", UID: "u1",
				ParticipantsCount: &zero, StartedAt: 5, EndedAt: 6, HasRecording: &yes, HasTranscription: &yes, Page: 2, PerPage: 10})
			return err
		}, "GET /calls", "/v3/calls", "endedAt=6&hasRecording=true&hasTranscription=true&mode=call&page=2&participantsCount=0&perPage=10&receiverType=user&startedAt=5&status=ended&type=audio&uid=u1", nil, ""},
		{"GetCall", "u1", func(c *client.Client) error {
			_, err := c.GetCall(ctx, "s1")
			return err
		}, "GET /calls/{sessionId}", "/v3/calls/s1", "", map[string]string{"sessionId": "s1"}, ""},
		{"ListCallTranscriptions", "u1", func(c *client.Client) error {
			_, err := c.ListCallTranscriptions(ctx, "s1", 2, 5)
			return err
		}, "GET /calls/{sessionId}/transcriptions", "/v3/calls/s1/transcriptions", "page=2&perPage=5", map[string]string{"sessionId": "s1"}, ""},
		{"AddCallTranscription", "u1", func(c *client.Client) error {
			_, err := c.AddCallTranscription(ctx, "s1", client.AddTranscriptionRequest{StartTime: 1, EndTime: 2, TranscriptURL: "https://t.example/x.json"})
			return err
		}, "POST /calls/{sessionId}/transcriptions", "/v3/calls/s1/transcriptions", "", map[string]string{"sessionId": "s1"}, `{"startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x.json"}`},
	}
	f := newFake(t)
	checkCovered(t, "callRoutes", callRoutes, checkEndpoints(t, f, tests, endpointChecks{}))
}
