package chat

import "time"

// Who is notified of what, on which channel: one rule, decided per recipient and channel
// from facts the caller gathers (settings, preferences, mutes, presence, contact details).
// The rule reads no storage, so it is decided the same way on every node and tested as a
// table (notifyrules_test.go).

// Notification preference values, as the hosted settings spell them (API-reference §4.10).
const (
	NotifyNever        = 1 // don't notify
	NotifyAll          = 2 // notify
	NotifyMentionsOnly = 3 // messages: only those that mention the user
	// NotifySubscribedThreads is the replies' fourth value (the SDK's
	// SUBSCRIBE_TO_SUBSCRIBED_THREADS): only the replies in the threads the user follows.
	NotifySubscribedThreads = 4
)

// Reasons a notification is not sent, as the log's reason says them.
const (
	ReasonActor          = "actor"          // the user made the change
	ReasonChannelOff     = "channelOff"     // the app's settings turn the channel off
	ReasonNoProvider     = "noProvider"     // no provider is configured for the channel
	ReasonMuted          = "muted"          // the user muted the conversation until later
	ReasonPreference     = "preference"     // the user's (or the app's default) preference says no
	ReasonNotMentioned   = "notMentioned"   // mentions only, and the message does not mention the user
	ReasonOnline         = "online"         // push, and the user has an open socket
	ReasonQuietHours     = "quietHours"     // the user's local time is in the quiet hours, or outside its schedule
	ReasonDND            = "dnd"            // the user turned Do Not Disturb on
	ReasonNoDestination  = "noDestination"  // no push token, phone number or email address
	ReasonRead           = "read"           // SMS or email after a delay: read meanwhile
	ReasonPushOnly       = "pushOnly"       // SMS and email are for unread messages, not other events
	ReasonUnknownTrigger = "unknownTrigger" // nothing notifies of this event
	ReasonUnsubscribed   = "unsubscribed"   // a reply in a thread the user unsubscribed from
	ReasonNotSubscribed  = "notSubscribed"  // subscribed threads only, and the user does not follow this one
)

// NotifyFacts are what the rule needs to know about one recipient of one event on one
// channel.
type NotifyFacts struct {
	Channel Channel
	// The event: its actor, whether it mentions the recipient, and the recipient's
	// preference for its kind (NotifyNever, NotifyAll or NotifyMentionsOnly; 0 reads as
	// NotifyAll). Mentions only applies to messages: for another kind it reads as NotifyAll.
	Actor      bool
	IsMessage  bool
	Mentioned  bool
	Preference int
	// Reply is whether the message is a thread reply, and Thread the recipient's state in
	// its thread (ThreadNone, ThreadSubscribed, ThreadUnsubscribed) once the reply's own
	// follows were stored (a reply that mentions the recipient made it follow).
	Reply  bool
	Thread int
	// BypassForMentions is the app's bypassPreferencesForMentions: a mention notifies
	// whatever the recipient's preference says (a mute still silences it).
	BypassForMentions bool
	// The app's channel settings.
	ChannelOn      bool
	HasProvider    bool
	PushWhenOnline bool          // push also to users with an open socket
	Delay          time.Duration // SMS and email: sent this long after the event, if still unread
	// The recipient.
	MutedUntil  time.Time // zero: not muted
	Online      bool
	Destination bool // a push token, a phone number or an email address for the channel
	Now         time.Time
	Quiet       QuietHours
	// DND and Schedule are the recipient's effective Do Not Disturb and weekly schedule
	// (NotificationPrefs): with DND on nothing is sent; with a schedule, only inside the
	// local day's from–to window, and nothing on a day marked dnd. Nil: no schedule.
	DND      bool
	Schedule *WeekSchedule
	Location *time.Location // the recipient's time zone; nil is UTC
}

// allows reports whether the schedule lets a notification go at local time t: the day is
// not marked dnd and HHMM is inside from–to, both ends included (the default 0000–2359 is
// the whole day); from later than to wraps past midnight.
func (w WeekSchedule) allows(t time.Time) bool {
	d := w.Day(t.Weekday())
	if d.DND {
		return false
	}
	hhmm := t.Hour()*100 + t.Minute()
	if d.From <= d.To {
		return hhmm >= d.From && hhmm <= d.To
	}
	return hhmm >= d.From || hhmm <= d.To
}

// QuietHours are a daily window, in minutes after local midnight, when nothing is sent;
// From == To is none. A window may wrap midnight (From > To).
type QuietHours struct {
	From, To int
}

// contains reports whether local clock time t is in the window.
func (q QuietHours) contains(t time.Time) bool {
	if q.From == q.To {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	if q.From < q.To {
		return m >= q.From && m < q.To
	}
	return m >= q.From || m < q.To
}

// NotifyDecision is the rule's answer: send (after Delay, then only if still unread when
// Recheck), or not, and why.
type NotifyDecision struct {
	Send    bool
	Reason  string
	Delay   time.Duration
	Recheck bool // deliver only if the recipient has not read the message by then
}

// DecideNotification decides one recipient's notification on one channel. The order of the
// checks is the order of the log's reasons: the first that says no is the reason.
func DecideNotification(f NotifyFacts) NotifyDecision {
	no := func(reason string) NotifyDecision { return NotifyDecision{Reason: reason} }
	pref := f.Preference
	if pref == 0 || (pref == NotifyMentionsOnly || pref == NotifySubscribedThreads) && !f.IsMessage ||
		pref == NotifySubscribedThreads && !f.Reply || f.BypassForMentions && f.Mentioned && f.IsMessage {
		pref = NotifyAll
	}
	switch {
	case f.Actor:
		return no(ReasonActor)
	case f.Channel != ChannelPush && !f.IsMessage:
		return no(ReasonPushOnly)
	case !f.ChannelOn:
		return no(ReasonChannelOff)
	case !f.HasProvider:
		return no(ReasonNoProvider)
	case !f.MutedUntil.IsZero() && f.Now.Before(f.MutedUntil):
		return no(ReasonMuted)
	case pref == NotifyNever:
		return no(ReasonPreference)
	case pref == NotifyMentionsOnly && !f.Mentioned:
		return no(ReasonNotMentioned)
	case f.Reply && f.Thread == ThreadUnsubscribed && !f.Mentioned:
		return no(ReasonUnsubscribed)
	case pref == NotifySubscribedThreads && f.Thread != ThreadSubscribed:
		return no(ReasonNotSubscribed)
	case f.Channel == ChannelPush && f.Online && !f.PushWhenOnline:
		return no(ReasonOnline)
	case !f.Destination:
		return no(ReasonNoDestination)
	case f.DND:
		return no(ReasonDND)
	}
	loc := f.Location
	if loc == nil {
		loc = time.UTC
	}
	local := f.Now.In(loc)
	if f.Quiet.contains(local) || f.Schedule != nil && !f.Schedule.allows(local) {
		return no(ReasonQuietHours)
	}
	d := NotifyDecision{Send: true}
	if f.Channel != ChannelPush {
		d.Delay, d.Recheck = f.Delay, true
	}
	return d
}
