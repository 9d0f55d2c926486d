package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/natter-chat/natter/client"
)

// notificationRoutes are the notification settings' routes, which TestNotificationEndpoints
// covers.
var notificationRoutes = func() map[string]bool {
	m := map[string]bool{}
	for _, rt := range []string{
		"GET /notifications/v1/settings", "PATCH /notifications/v1/settings", "DELETE /notifications/v1/settings",
		"GET /notifications/v1/preferences", "PATCH /notifications/v1/preferences", "DELETE /notifications/v1/preferences",
		"GET /notifications/push/v1/preferences", "PATCH /notifications/push/v1/preferences", "DELETE /notifications/push/v1/preferences",
		"GET /notifications/v1/preferences/mute", "PUT /notifications/v1/preferences/mute", "DELETE /notifications/v1/preferences/mute",
		"GET /notifications/push/v1/preferences/mute", "PUT /notifications/push/v1/preferences/mute", "DELETE /notifications/push/v1/preferences/mute",
		"GET /notifications/v1/preferences/timezone", "PATCH /notifications/v1/preferences/timezone",
		"GET /notifications/v1/contact-details", "PATCH /notifications/v1/contact-details", "DELETE /notifications/v1/contact-details",
	} {
		m[rt] = true
	}
	return m
}()

// TestNotificationEndpoints calls every notification method once and checks the request the
// server saw, as TestEndpoints does, covering notificationRoutes.
func TestNotificationEndpoints(t *testing.T) {
	ctx := context.Background()
	three, yes := 3, true
	update := client.NotificationPreferencesUpdate{UsePrivacyTemplate: &yes}
	update.GroupPreferences = &client.GroupPreferencesUpdate{GroupMessages: &three}
	const updateBody = `{"groupPreferences":{"groupMessages":3},"usePrivacyTemplate":true}`
	mutes := []client.MutedConversation{{ID: "g 1", Type: client.MuteGroup, Until: 1893456000000}}
	const mutesBody = `{"conversations":[{"id":"g 1","type":"group","until":1893456000000}]}`
	unmutes := []client.MutedConversation{{ID: "u2", Type: client.MuteOneOnOne}}
	const unmutesBody = `{"conversations":[{"id":"u2","type":"oneOnOne"}]}`
	email := "someone@example.com"
	tests := []endpointCase{
		{"GetNotificationSettings", "", func(c *client.Client) error { _, err := c.GetNotificationSettings(ctx); return err },
			"GET /notifications/v1/settings", "", "", nil, ""},
		{"UpdateNotificationSettings", "", func(c *client.Client) error {
			_, err := c.UpdateNotificationSettings(ctx, map[string]any{"sound": map[string]any{"chat": "ping.caf"}})
			return err
		}, "PATCH /notifications/v1/settings", "", "", nil, `{"sound":{"chat":"ping.caf"}}`},
		{"ResetNotificationSettings", "", func(c *client.Client) error { _, err := c.ResetNotificationSettings(ctx); return err },
			"DELETE /notifications/v1/settings", "", "", nil, ""},
		{"GetNotificationPreferences", "", func(c *client.Client) error { _, err := c.GetNotificationPreferences(ctx, "u 1"); return err },
			"GET /notifications/v1/preferences", "", "uid=u+1", nil, ""},
		{"UpdateNotificationPreferences", "", func(c *client.Client) error {
			_, err := c.UpdateNotificationPreferences(ctx, "u1", update)
			return err
		}, "PATCH /notifications/v1/preferences", "", "uid=u1", nil, updateBody},
		{"ResetNotificationPreferences", "", func(c *client.Client) error { _, err := c.ResetNotificationPreferences(ctx, "u1"); return err },
			"DELETE /notifications/v1/preferences", "", "uid=u1", nil, ""},
		{"FetchPushPreferences with a token", "", func(c *client.Client) error { _, err := c.FetchPushPreferences(ctx, ""); return err },
			"GET /notifications/push/v1/preferences", "", "", nil, ""},
		{"UpdatePushPreferences", "", func(c *client.Client) error { _, err := c.UpdatePushPreferences(ctx, "", update); return err },
			"PATCH /notifications/push/v1/preferences", "", "", nil, updateBody},
		{"ResetPushPreferences", "", func(c *client.Client) error { _, err := c.ResetPushPreferences(ctx, "u1"); return err },
			"DELETE /notifications/push/v1/preferences", "", "uid=u1", nil, ""},
		{"GetMutedConversations", "", func(c *client.Client) error { _, err := c.GetMutedConversations(ctx, "u1"); return err },
			"GET /notifications/v1/preferences/mute", "", "uid=u1", nil, ""},
		{"MuteConversations", "", func(c *client.Client) error { _, err := c.MuteConversations(ctx, "u1", mutes); return err },
			"PUT /notifications/v1/preferences/mute", "", "uid=u1", nil, mutesBody},
		{"UnmuteConversations", "", func(c *client.Client) error { _, err := c.UnmuteConversations(ctx, "u1", unmutes); return err },
			"DELETE /notifications/v1/preferences/mute", "", "uid=u1", nil, unmutesBody},
		{"GetPushMutedConversations", "", func(c *client.Client) error { _, err := c.GetPushMutedConversations(ctx, ""); return err },
			"GET /notifications/push/v1/preferences/mute", "", "", nil, ""},
		{"MutePushConversations", "", func(c *client.Client) error { _, err := c.MutePushConversations(ctx, "", mutes); return err },
			"PUT /notifications/push/v1/preferences/mute", "", "", nil, mutesBody},
		{"UnmutePushConversations", "", func(c *client.Client) error { _, err := c.UnmutePushConversations(ctx, "", unmutes); return err },
			"DELETE /notifications/push/v1/preferences/mute", "", "", nil, unmutesBody},
		{"GetNotificationTimezone", "", func(c *client.Client) error { _, err := c.GetNotificationTimezone(ctx, "u1"); return err },
			"GET /notifications/v1/preferences/timezone", "", "uid=u1", nil, ""},
		{"SetNotificationTimezone", "", func(c *client.Client) error { _, err := c.SetNotificationTimezone(ctx, "u1", "Asia/Tokyo"); return err },
			"PATCH /notifications/v1/preferences/timezone", "", "uid=u1", nil, `{"timezone":"Asia/Tokyo"}`},
		{"GetContactDetails", "u1", func(c *client.Client) error { _, err := c.GetContactDetails(ctx); return err },
			"GET /notifications/v1/contact-details", "", "", nil, ""},
		{"UpdateContactDetails", "u1", func(c *client.Client) error {
			_, err := c.UpdateContactDetails(ctx, client.ContactDetailsUpdate{Email: &email})
			return err
		}, "PATCH /notifications/v1/contact-details", "", "", nil, `{"email":"someone@example.com"}`},
		{"DeleteContactDetails", "u1", func(c *client.Client) error { _, err := c.DeleteContactDetails(ctx); return err },
			"DELETE /notifications/v1/contact-details", "", "", nil, ""},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	c := f.client()
	checkCovered(t, "notificationRoutes", notificationRoutes, covered)

	// Answers are read into their types.
	f.respond(http.StatusOK, `{"data":{"mutedConversations":[{"id":"g1","type":"group","until":1893456000000}]}}`)
	if ms, err := c.GetMutedConversations(ctx, "u1"); err != nil || len(ms) != 1 || ms[0].Until != 1893456000000 {
		t.Errorf("muted: %+v %v", ms, err)
	}
	f.last(t)
	f.respond(http.StatusOK, `{"data":{"success":true,"timezone":"Asia/Tokyo"}}`)
	if tz, err := c.GetNotificationTimezone(ctx, "u1"); err != nil || tz != "Asia/Tokyo" {
		t.Errorf("timezone: %q %v", tz, err)
	}
	f.last(t)
	f.respond(http.StatusOK, `{"data":{"groupPreferences":{"groupMessages":3},"mutePreferences":{"dnd":2,"schedule":{"monday":{"from":900,"to":1700,"dnd":false}}}}}`)
	if p, err := c.GetNotificationPreferences(ctx, "u1"); err != nil || p.GroupPreferences.GroupMessages != 3 || p.MutePreferences.Schedule["monday"].To != 1700 {
		t.Errorf("preferences: %+v %v", p, err)
	}
	f.last(t)
}
