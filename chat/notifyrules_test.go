package chat

import (
	"testing"
	"time"
)

func TestDecideNotification(t *testing.T) {
	now := time.Date(2026, 11, 24, 22, 30, 0, 0, time.UTC) // 22:30 UTC
	tokyo, err := time.LoadLocation("Asia/Tokyo")          // 07:30 the next day there
	if err != nil {
		t.Fatal(err)
	}
	// base is a push of a message to an offline user with a token, everything on.
	base := NotifyFacts{Channel: ChannelPush, IsMessage: true, Preference: NotifyAll, ChannelOn: true, HasProvider: true,
		Destination: true, Now: now, Delay: 5 * time.Minute}
	with := func(change func(*NotifyFacts)) NotifyFacts {
		f := base
		change(&f)
		return f
	}
	send := NotifyDecision{Send: true}
	later := NotifyDecision{Send: true, Delay: 5 * time.Minute, Recheck: true}
	no := func(reason string) NotifyDecision { return NotifyDecision{Reason: reason} }
	week := func(d DaySchedule) WeekSchedule {
		return WeekSchedule{Monday: d, Tuesday: d, Wednesday: d, Thursday: d, Friday: d, Saturday: d, Sunday: d}
	}
	allDay := week(DaySchedule{From: 0, To: 2359})
	office := week(DaySchedule{From: 900, To: 1700}) // 22:30 UTC is outside
	early := week(DaySchedule{From: 700, To: 730})   // Tokyo's 07:30, ends included
	nights := week(DaySchedule{From: 2200, To: 600}) // wraps midnight
	tuesdayOff := allDay                             // now is a Tuesday in UTC
	tuesdayOff.Tuesday.DND = true
	for _, tc := range []struct {
		name  string
		facts NotifyFacts
		want  NotifyDecision
	}{
		{"push of a message", base, send},
		{"the actor is not notified", with(func(f *NotifyFacts) { f.Actor = true }), no(ReasonActor)},
		{"the actor, even when mentioned", with(func(f *NotifyFacts) { f.Actor, f.Mentioned = true, true }), no(ReasonActor)},
		{"channel off", with(func(f *NotifyFacts) { f.ChannelOn = false }), no(ReasonChannelOff)},
		{"no provider", with(func(f *NotifyFacts) { f.HasProvider = false }), no(ReasonNoProvider)},
		{"muted until later", with(func(f *NotifyFacts) { f.MutedUntil = now.Add(time.Minute) }), no(ReasonMuted)},
		{"a mute that ended", with(func(f *NotifyFacts) { f.MutedUntil = now.Add(-time.Minute) }), send},
		{"a mute ending now has ended", with(func(f *NotifyFacts) { f.MutedUntil = now }), send},
		{"muted beats mentioned", with(func(f *NotifyFacts) { f.MutedUntil, f.Mentioned = now.Add(time.Hour), true }), no(ReasonMuted)},
		{"preference never", with(func(f *NotifyFacts) { f.Preference = NotifyNever }), no(ReasonPreference)},
		{"no preference reads as all", with(func(f *NotifyFacts) { f.Preference = 0 }), send},
		{"mentions only, not mentioned", with(func(f *NotifyFacts) { f.Preference = NotifyMentionsOnly }), no(ReasonNotMentioned)},
		{"mentions only, mentioned", with(func(f *NotifyFacts) { f.Preference, f.Mentioned = NotifyMentionsOnly, true }), send},
		{"mentions only on a reaction reads as all", with(func(f *NotifyFacts) { f.Preference, f.IsMessage = NotifyMentionsOnly, false }), send},
		{"a reply to a bystander", with(func(f *NotifyFacts) { f.Reply = true }), send},
		{"a reply to a follower", with(func(f *NotifyFacts) { f.Reply, f.Thread = true, ThreadSubscribed }), send},
		{"a reply in a thread the user left", with(func(f *NotifyFacts) { f.Reply, f.Thread = true, ThreadUnsubscribed }), no(ReasonUnsubscribed)},
		{"a reply mentioning a user who left the thread", with(func(f *NotifyFacts) { f.Reply, f.Thread, f.Mentioned = true, ThreadUnsubscribed, true }), send},
		{"subscribed threads, not following", with(func(f *NotifyFacts) { f.Reply, f.Preference = true, NotifySubscribedThreads }), no(ReasonNotSubscribed)},
		{"subscribed threads, following", with(func(f *NotifyFacts) {
			f.Reply, f.Preference, f.Thread = true, NotifySubscribedThreads, ThreadSubscribed
		}), send},
		{"subscribed threads, left the thread", with(func(f *NotifyFacts) {
			f.Reply, f.Preference, f.Thread = true, NotifySubscribedThreads, ThreadUnsubscribed
		}), no(ReasonUnsubscribed)},
		{"subscribed threads on a top-level message reads as all", with(func(f *NotifyFacts) { f.Preference = NotifySubscribedThreads }), send},
		{"subscribed threads, never, beats following", with(func(f *NotifyFacts) {
			f.Reply, f.Preference, f.Thread = true, NotifyNever, ThreadSubscribed
		}), no(ReasonPreference)},
		{"a user who left the thread is still muted first", with(func(f *NotifyFacts) {
			f.Reply, f.Thread, f.MutedUntil = true, ThreadUnsubscribed, now.Add(time.Hour)
		}), no(ReasonMuted)},
		{"online: no push", with(func(f *NotifyFacts) { f.Online = true }), no(ReasonOnline)},
		{"online, push when online", with(func(f *NotifyFacts) { f.Online, f.PushWhenOnline = true, true }), send},
		{"no push token", with(func(f *NotifyFacts) { f.Destination = false }), no(ReasonNoDestination)},
		{"quiet hours wrapping midnight, UTC", with(func(f *NotifyFacts) { f.Quiet = QuietHours{From: 22 * 60, To: 7 * 60} }), no(ReasonQuietHours)},
		{"the same quiet hours, over in Tokyo", with(func(f *NotifyFacts) { f.Quiet, f.Location = QuietHours{From: 22 * 60, To: 7 * 60}, tokyo }), send},
		{"quiet hours in the day, in Tokyo", with(func(f *NotifyFacts) { f.Quiet, f.Location = QuietHours{From: 7 * 60, To: 8 * 60}, tokyo }), no(ReasonQuietHours)},
		{"quiet hours end exclusive", with(func(f *NotifyFacts) { f.Quiet = QuietHours{From: 20 * 60, To: 22*60 + 30} }), send},
		{"empty quiet hours", with(func(f *NotifyFacts) { f.Quiet = QuietHours{From: 60, To: 60} }), send},
		{"DND on", with(func(f *NotifyFacts) { f.DND = true }), no(ReasonDND)},
		{"the whole day scheduled", with(func(f *NotifyFacts) { f.Schedule = &allDay }), send},
		{"outside the day's window", with(func(f *NotifyFacts) { f.Schedule = &office }), no(ReasonQuietHours)},
		{"inside the window, in Tokyo (Wednesday 07:30)", with(func(f *NotifyFacts) { f.Schedule, f.Location = &early, tokyo }), send},
		{"a window wrapping midnight", with(func(f *NotifyFacts) { f.Schedule = &nights }), send},
		{"a dnd day", with(func(f *NotifyFacts) { f.Schedule = &tuesdayOff }), no(ReasonQuietHours)},
		{"a mention bypasses the preference", with(func(f *NotifyFacts) { f.Preference, f.Mentioned, f.BypassForMentions = NotifyNever, true, true }), send},
		{"bypass without a mention", with(func(f *NotifyFacts) { f.Preference, f.BypassForMentions = NotifyNever, true }), no(ReasonPreference)},
		{"bypass does not lift a mute", with(func(f *NotifyFacts) {
			f.MutedUntil, f.Mentioned, f.BypassForMentions = now.Add(time.Hour), true, true
		}), no(ReasonMuted)},
		{"email of a message: later, if unread", with(func(f *NotifyFacts) { f.Channel = ChannelEmail }), later},
		{"sms of a message to an online user: later, if unread", with(func(f *NotifyFacts) { f.Channel, f.Online = ChannelSMS, true }), later},
		{"sms without a phone number", with(func(f *NotifyFacts) { f.Channel, f.Destination = ChannelSMS, false }), no(ReasonNoDestination)},
		{"email of a reaction", with(func(f *NotifyFacts) { f.Channel, f.IsMessage = ChannelEmail, false }), no(ReasonPushOnly)},
		{"push of a member change", with(func(f *NotifyFacts) { f.IsMessage = false }), send},
	} {
		if got := DecideNotification(tc.facts); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
