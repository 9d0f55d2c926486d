package chat

import (
	"context"
	"time"
)

// Notifications (issue 17) come in three planes. This file and notif*.go are the settings
// plane: what an app and each of its users want notified (notifsettings.go, notifprefs.go),
// the conversations a user muted (notifmutes.go), its time zone and its contact details
// (notifcontact.go). The providers and push tokens, and the rules that decide and send,
// build on it; the rules read it through NotificationReader.

// NotificationReader is what the notification rules read to decide, per message, who is
// notified and how. It is cheap by design:
//   - NotificationSettings is one row per app (natter's defaults when the app saved none);
//     read it once per message, or cache it briefly.
//   - NotificationRecipients reads every recipient of one message at once (two indexed
//     queries per 500 users, whatever the group's size): each one's own choices, time zone,
//     contact details, and until when it muted that message's conversation.
//
// The decisions on what it returns are chat's, so that the rules and the API agree:
// EffectiveNotificationPrefs (its choices over the app's, where the app allows them),
// NotificationRecipient.MutedAt (a mute that counts at a time) and .Location (its time zone).
type NotificationReader interface {
	// NotificationSettings is the app's settings, or DefaultNotificationSettings when it
	// saved none.
	NotificationSettings(ctx context.Context, appID string) (NotificationSettings, error)
	// NotificationRecipients is the notification state of each of uids (lower-cased, as
	// stored) for the conversation conv, as seen by that user: for a one-to-one message,
	// {MuteOneOnOne, the sender's uid} and the receiver; for a group message,
	// {MuteGroup, guid} and the members. Every uid asked for is in the answer, the zero
	// state (the app's preferences, UTC, no contact, not muted) for one that stored nothing;
	// whether the uid is a user is not checked.
	NotificationRecipients(ctx context.Context, appID string, conv ConversationRef, uids []string) (map[string]NotificationRecipient, error)
}

// NotificationRecipient is what natter keeps about one user that the notification rules
// read.
type NotificationRecipient struct {
	UID       string
	Overrides NotificationOverrides
	// Timezone is the IANA name the user set; "" when never set (UTC).
	Timezone string
	// Email and Phone are the contact details for email and SMS; "" when not given.
	Email, Phone string
	// MutedUntil is when the user's mute of the conversation asked about ends (UNIX
	// milliseconds); 0 when it has none. An expired mute may still be stored: see MutedAt.
	MutedUntil int64
}

// Prefs is the user's effective preferences under its app's settings.
func (r NotificationRecipient) Prefs(app NotificationSettings) NotificationPrefs {
	return EffectiveNotificationPrefs(app, r.Overrides)
}

// MutedAt reports whether the user's mute of a conversation of kind conversationType
// (MuteOneOnOne or MuteGroup) silences it at atMS (UNIX milliseconds): the mute has not
// ended, and the app lets users mute that kind of conversation.
func (r NotificationRecipient) MutedAt(app NotificationSettings, conversationType string, atMS int64) bool {
	return r.MutedUntil > atMS && app.MayMute(conversationType)
}

// Location is the user's time zone, UTC when it set none.
func (r NotificationRecipient) Location() *time.Location {
	if r.Timezone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(r.Timezone)
	if err != nil { // validated when set; a zone the tz database later drops falls back
		return time.UTC
	}
	return loc
}

// NotificationStore keeps notification settings. Every method scopes by app.
type NotificationStore interface {
	NotificationReader
	// UserNotifications is one user's stored state (Overrides, Timezone, Email, Phone;
	// MutedUntil unset), the zero state when it stored nothing.
	UserNotifications(ctx context.Context, appID, uid string) (NotificationRecipient, error)
	// MutedConversations lists uid's mutes that end after atMS, by type and id.
	MutedConversations(ctx context.Context, appID, uid string, atMS int64) ([]MutedConversation, error)
}

// NotificationTx is what changing notification settings needs inside its transaction.
// Writes to a user's rows are made holding the user (FriendTx's LockUsers).
type NotificationTx interface {
	// NotificationSettingsForUpdate holds the app's row until the transaction ends and
	// reads its settings (DefaultNotificationSettings when it saved none).
	NotificationSettingsForUpdate(appID string) (NotificationSettings, error)
	// SaveNotificationSettings writes the app's settings; DeleteNotificationSettings
	// removes them, back to the defaults.
	SaveNotificationSettings(appID string, s NotificationSettings, at int64) error
	DeleteNotificationSettings(appID string) error
	// UserNotificationsTx reads uid's stored state as UserNotifications does.
	UserNotificationsTx(appID, uid string) (NotificationRecipient, error)
	// SaveNotificationOverrides writes uid's choices; zero ones are none.
	SaveNotificationOverrides(appID, uid string, o NotificationOverrides, at int64) error
	// SaveNotificationTimezone writes uid's time zone.
	SaveNotificationTimezone(appID, uid, timezone string, at int64) error
	// SaveContactDetails writes uid's email and phone ("": none).
	SaveContactDetails(appID, uid string, c ContactDetails, at int64) error
	// MuteConversations stores uid's mutes (a conversation muted again takes the new end),
	// and drops uid's mutes that ended at or before nowMS.
	MuteConversations(appID, uid string, mutes []MutedConversation, nowMS int64) error
	// UnmuteConversations removes uid's mutes of convs (none is no error), and drops uid's
	// mutes that ended at or before nowMS.
	UnmuteConversations(appID, uid string, convs []ConversationRef, nowMS int64) error
}

// notificationUser is the user a per-user notification call is about: uid (the query's)
// with an API key; with an auth token, the token's user, which uid may name but not another.
func (s *Service) notificationUser(ctx context.Context, p Principal, uid string) (User, error) {
	if p.ByToken() {
		if uid != "" {
			if id, _ := NormalizeID(uid); id != p.Actor {
				return User{}, errNoAccess("An auth token may read and change only its own user's notification settings.")
			}
		}
		uid = p.Actor
	} else if uid == "" {
		return User{}, InvalidField("uid", "The uid parameter is required.")
	}
	return s.User(ctx, p, uid)
}

// changeUserNotifications runs fn in a transaction holding uid, an active user (else
// ERR_UID_NOT_FOUND), with its stored state.
func (s *Service) changeUserNotifications(ctx context.Context, p Principal, uid string, fn func(tx Tx, cur NotificationRecipient) error) error {
	err := s.transactSettings(ctx, p.App.ID, SettingNotification, func(tx Tx) error {
		users, err := tx.LockUsers(p.App.ID, []string{uid})
		if err != nil {
			return err
		}
		if len(users) != 1 || !users[0].Active() {
			return errUIDNotFound(uid)
		}
		cur, err := tx.UserNotificationsTx(p.App.ID, uid)
		if err != nil {
			return err
		}
		return fn(tx, cur)
	})
	if err != nil && ErrorCode(err) == "" {
		return internal("change notification settings", err)
	}
	return err
}

// nowMS is the service clock in UNIX milliseconds.
func (s *Service) nowMS() int64 { return s.cfg.Now().UnixMilli() }
