package chat

import (
	"context"
	"net/mail"
	"regexp"
	"strings"
	"time"
)

// A user's time zone (GET/PATCH /notifications/v1/preferences/timezone), in which its DND
// schedule is read, and its contact details (GET/PATCH/DELETE
// /notifications/v1/contact-details), where email and SMS notifications go.

// Limits of a user's time zone and contact details.
const (
	MaxTimezoneLen = 64  // the longest IANA name is 32 characters
	MaxEmailLen    = 254 // RFC 5321's path limit
)

// DefaultTimezone is the time zone of a user that set none.
const DefaultTimezone = "UTC"

// CheckTimezone checks an IANA time zone name (Asia/Tokyo, UTC), as the tz database that
// natter embeds knows them; "Local" (the server's own zone) is not one.
func CheckTimezone(tz string) error {
	fe := fieldErrors{}
	fe.text("timezone", tz, MaxTimezoneLen, true)
	if err := fe.err(); err != nil {
		return err
	}
	if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
		return InvalidField("timezone", "The timezone must be an IANA time zone name, such as Asia/Tokyo.")
	}
	return nil
}

// NotificationTimezone reads a user's time zone, DefaultTimezone when it set none.
func (s Notifications) NotificationTimezone(ctx context.Context, p Principal, uid string) (string, error) {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return "", err
	}
	cur, err := s.store.UserNotifications(ctx, p.App.ID, u.UID)
	if err != nil {
		return "", internal("read time zone", err)
	}
	if cur.Timezone == "" {
		return DefaultTimezone, nil
	}
	return cur.Timezone, nil
}

// SetNotificationTimezone sets a user's time zone (CheckTimezone).
func (s Notifications) SetNotificationTimezone(ctx context.Context, p Principal, uid, tz string) (string, error) {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return "", err
	}
	if err := CheckTimezone(tz); err != nil {
		return "", err
	}
	err = s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, _ NotificationRecipient) error {
		return tx.SaveNotificationTimezone(p.App.ID, u.UID, tz, s.now())
	})
	return tz, err
}

// ContactDetails are where a user's email and SMS notifications go; "" is none.
type ContactDetails struct {
	Email string
	Phone string // E.164: +, the country code and the number, digits only
}

// ContactChange is an update of contact details: nil leaves a field as it is, "" removes it.
type ContactChange struct {
	Email, Phone *string
}

// e164 is a phone number in E.164 form: + and 7 to 15 digits, the first not 0.
var e164 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// phoneSeparators are what people write between a number's digits; they are dropped.
var phoneSeparators = strings.NewReplacer(" ", "", "-", "", ".", "", "(", "", ")", "")

// CheckContactChange validates a change of contact details and returns it normalised: an
// email is one address without a display name; a phone number is E.164 (+919591128691),
// once spaces, hyphens, dots and parentheses are dropped.
func CheckContactChange(ch ContactChange) (ContactChange, error) {
	fe := fieldErrors{}
	if ch.Email == nil && ch.Phone == nil {
		fe.add("email", "Give email, phno or both.")
		fe.add("phno", "Give email, phno or both.")
		return ch, fe.err()
	}
	if ch.Email != nil && *ch.Email != "" {
		e := *ch.Email
		fe.text("email", e, MaxEmailLen, true)
		if a, err := mail.ParseAddress(e); err != nil || a.Name != "" || a.Address != e {
			fe.add("email", "The email must be an email address, such as someone@example.com.")
		}
	}
	if ch.Phone != nil && *ch.Phone != "" {
		n := phoneSeparators.Replace(*ch.Phone)
		if !e164.MatchString(n) {
			fe.add("phno", "The phno must be a phone number with its country code, such as +14155550123.")
		}
		ch.Phone = &n
	}
	return ch, fe.err()
}

// ContactDetails reads the acting user's contact details: onBehalfOf's (required), or the
// auth token's user's.
func (s Notifications) ContactDetails(ctx context.Context, p Principal) (ContactDetails, error) {
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return ContactDetails{}, err
	}
	cur, err := s.store.UserNotifications(ctx, p.App.ID, u.UID)
	if err != nil {
		return ContactDetails{}, internal("read contact details", err)
	}
	return ContactDetails{Email: cur.Email, Phone: cur.Phone}, nil
}

// UpdateContactDetails changes the acting user's contact details (CheckContactChange) and
// answers them.
func (s Notifications) UpdateContactDetails(ctx context.Context, p Principal, ch ContactChange) (ContactDetails, error) {
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return ContactDetails{}, err
	}
	if ch, err = CheckContactChange(ch); err != nil {
		return ContactDetails{}, err
	}
	var out ContactDetails
	err = s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, cur NotificationRecipient) error {
		out = ContactDetails{Email: cur.Email, Phone: cur.Phone}
		if ch.Email != nil {
			out.Email = *ch.Email
		}
		if ch.Phone != nil {
			out.Phone = *ch.Phone
		}
		return tx.SaveContactDetails(p.App.ID, u.UID, out, s.now())
	})
	return out, err
}

// DeleteContactDetails removes the acting user's contact details; none is no error.
func (s Notifications) DeleteContactDetails(ctx context.Context, p Principal) error {
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return err
	}
	return s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, _ NotificationRecipient) error {
		return tx.SaveContactDetails(p.App.ID, u.UID, ContactDetails{}, s.now())
	})
}
