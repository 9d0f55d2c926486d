package httpapi

import (
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestLogReason checks how records' reasons read the hosted way, and what stays natter's.
func TestLogReason(t *testing.T) {
	tests := []struct {
		trigger, reason string
		channel         chat.Channel
		attempt         int
		want            string
	}{
		{chat.TriggerMessageSent, chat.ReasonMuted, chat.ChannelPush, 0, "MUTE_PREFERENCE"},
		{chat.TriggerMessageSent, chat.ReasonDND, chat.ChannelPush, 0, "DND_PREFERENCE"},
		{chat.TriggerMessageSent, chat.ReasonQuietHours, chat.ChannelEmail, 0, "SCHEDULE_PREFERENCE"},
		{chat.TriggerMessageSent, chat.ReasonPreference, chat.ChannelPush, 0, "MESSAGES_PREFERENCE"},
		{chat.TriggerReactionAdded, chat.ReasonPreference, chat.ChannelPush, 0, "REACTIONS_PREFERENCE"},
		{chat.TriggerMemberKicked, chat.ReasonPreference, chat.ChannelPush, 0, "GROUP_ACTIONS_PREFERENCE"},
		{chat.TriggerCallInitiated, chat.ReasonPreference, chat.ChannelPush, 0, "CALL_PREFERENCE"},
		{chat.TriggerMessageSent, chat.ReasonNoDestination, chat.ChannelEmail, 0, "MISSING_EMAIL"},
		{chat.TriggerMessageSent, chat.ReasonNoDestination, chat.ChannelSMS, 0, "MISSING_PHNO"},
		{chat.TriggerMessageSent, chat.ReasonNoDestination, chat.ChannelPush, 0, chat.ReasonNoDestination},
		{chat.TriggerMessageSent, chat.ReasonNotMentioned, chat.ChannelPush, 0, chat.ReasonNotMentioned},
		{chat.TriggerMessageSent, chat.ReasonOnline, chat.ChannelPush, 0, chat.ReasonOnline},
		{chat.TriggerMessageSent, "UNREGISTERED", chat.ChannelPush, 1, "UNREGISTERED"},
		{chat.TriggerMessageSent, chat.ReasonInvalidProvider, chat.ChannelPush, 0, chat.ReasonInvalidProvider},
	}
	for _, tt := range tests {
		got := logReason(chat.NotificationLog{Trigger: tt.trigger, Reason: tt.reason, Channel: tt.channel, Attempt: tt.attempt})
		if got != tt.want {
			t.Errorf("%s %s %s: %q, want %q", tt.trigger, tt.reason, tt.channel, got, tt.want)
		}
	}
}

// TestLogReasonFilter checks the hosted reason filters as natter's stored values, and that a
// contradiction or a reason natter never gives matches nothing (stays unknown).
func TestLogReasonFilter(t *testing.T) {
	tests := []struct {
		in   chat.NotificationLogQuery
		want chat.NotificationLogQuery
	}{
		{chat.NotificationLogQuery{Reason: "MUTE_PREFERENCE"}, chat.NotificationLogQuery{Reason: chat.ReasonMuted}},
		{chat.NotificationLogQuery{Reason: "MESSAGES_PREFERENCE"}, chat.NotificationLogQuery{Reason: chat.ReasonPreference, Trigger: chat.TriggerMessageSent}},
		{chat.NotificationLogQuery{Reason: "REACTIONS_PREFERENCE", Trigger: chat.TriggerReactionAdded},
			chat.NotificationLogQuery{Reason: chat.ReasonPreference, Trigger: chat.TriggerReactionAdded}},
		{chat.NotificationLogQuery{Reason: "REACTIONS_PREFERENCE", Trigger: chat.TriggerMessageSent},
			chat.NotificationLogQuery{Reason: "REACTIONS_PREFERENCE", Trigger: chat.TriggerMessageSent}},
		{chat.NotificationLogQuery{Reason: "MISSING_PHNO"}, chat.NotificationLogQuery{Reason: chat.ReasonNoDestination, Channel: chat.ChannelSMS}},
		{chat.NotificationLogQuery{Reason: "MISSING_PHNO", Channel: chat.ChannelEmail},
			chat.NotificationLogQuery{Reason: "MISSING_PHNO", Channel: chat.ChannelEmail}},
		{chat.NotificationLogQuery{Reason: "TIMED_OUT"}, chat.NotificationLogQuery{Reason: "TIMED_OUT"}},
		{chat.NotificationLogQuery{Reason: chat.ReasonMuted}, chat.NotificationLogQuery{Reason: chat.ReasonMuted}},
	}
	for _, tt := range tests {
		got := tt.in
		logReasonFilter(&got)
		if got != tt.want {
			t.Errorf("%+v: %+v, want %+v", tt.in, got, tt.want)
		}
	}
	// Every hosted trigger names one of natter's, and back.
	for natter, hosted := range logTriggers {
		if storedTriggers[hosted] != natter || logTrigger(natter) != hosted {
			t.Errorf("trigger %s ↔ %s does not round-trip", natter, hosted)
		}
	}
}
