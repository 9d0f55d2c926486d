package chat

import (
	"context"
	"time"
)

// Sending notifications (docs/notifications.md, "Sending"). A change that may notify writes
// one notification event in its own transaction, and only when the app has a provider
// (notifying, cached per app): nothing per recipient happens in the request. A worker on
// some node leases the event and expands it (ExpandNotification): it decides per
// recipient and channel with DecideNotification, and the store keeps a log record of every
// decision and a pending send for each that passed. Senders lease the due sends, send them
// through package notify and log every attempt.

// NotificationEvent is a leased notification event.
type NotificationEvent struct {
	ID             int64
	AppID          string
	Trigger        string
	ConversationID string
	MessageID      int64
	Ref            EventRef // a reaction's: who reacted (UID) with what
	CreatedAt      int64    // UNIX milliseconds
	Attempts       int
}

// NotificationSend is one notification to one destination, pending until it is sent,
// refused, or out of retries.
type NotificationSend struct {
	ID             int64
	AppID          string
	EventID        int64
	Trigger        string
	ConversationID string
	MessageID      int64
	UID            string // the recipient
	Channel        Channel
	Provider       string // ProviderFCM, ProviderAPNs, ProviderTwilio, ProviderSendGrid, or "custom"
	ProviderID     string // a push token's providerId
	Destination    string // the push token, phone number or email address; "" for a custom provider without one
	TokenKind      PushTokenKind
	Recheck        bool     // send only if the recipient has not read the message by then
	Ref            EventRef // the event's
	Attempts       int
	NextAt         int64
	CreatedAt      int64
}

// The providers as the log names them.
const (
	LogProviderFCM      = "fcm"
	LogProviderAPNs     = "apns"
	LogProviderTwilio   = "twilio"
	LogProviderSendGrid = "sendgrid"
	LogProviderCustom   = "custom"
)

// ReasonInvalidProvider is the log's reason for a push token whose providerId names no
// provider of the app.
const ReasonInvalidProvider = "INVALID_PUSH_PROVIDER_ID"

// NotificationLog is one record of the delivery log: a decision (Attempt 0: Triggered
// says whether a notification was to be sent, Reason why not) or an attempt to send one
// (Attempt 1, 2, …: Success, the provider's Status and, when it failed, Reason).
type NotificationLog struct {
	ID              int64
	AppID           string
	EventID         int64
	Trigger         string
	MessageID       int64
	MessageCategory string
	MessageType     string
	Sender          string
	Receiver        string // the message's receiver: a uid, or a guid
	ReceiverType    string
	Recipient       string // the user notified, or not
	ReactionID      int64  // a reaction's
	Member          string // the user a member change is about
	Channel         Channel
	Provider        string
	Triggered       bool
	Reason          string
	Success         bool
	Attempt         int
	Status          int
	LatencyMS       int64
	CreatedAt       int64 // UNIX milliseconds
}

// NotificationLogQuery filters and pages the log. Zero values do not filter.
type NotificationLogQuery struct {
	MessageID       int64
	From, To        int64 // UNIX milliseconds, both included
	MessageCategory string
	MessageType     string
	Trigger         string
	Sender          string
	Receiver        string
	ReceiverType    string
	Recipient       string
	// ReactionSender and ReactionReceiver select reaction_added records: who reacted, and
	// who was notified of it.
	ReactionSender   string
	ReactionReceiver string
	ReactionID       int64
	Member           string
	Channel          Channel
	Provider         string
	Triggered        *bool
	Reason           string
	Success          *bool
	// LogID and After page: records older than LogID (newest first), or with After
	// ("affix=append") newer than it (oldest first).
	LogID int64
	After bool
	Limit int
}

// NotificationAttempt is what an attempt of a send came to: its log record, and whether the
// send is done (else pending again at Send.NextAt).
type NotificationAttempt struct {
	Send NotificationSend
	Log  NotificationLog
	Done bool
}

// ExpandedEvent is a notification event's expansion, to be written in place of the event.
type ExpandedEvent struct {
	EventID int64
	Logs    []NotificationLog
	Sends   []NotificationSend
}

// NotificationDeliveryStore is what the notification workers need from storage.
type NotificationDeliveryStore interface {
	// ClaimNotificationEvents leases events whose lease has ended (or never began),
	// oldest first, counting an attempt on each; on PostgreSQL FOR UPDATE SKIP LOCKED.
	ClaimNotificationEvents(ctx context.Context, l Lease) ([]NotificationEvent, error)
	// FinishNotificationEvent writes an event's log records and sends, and deletes the
	// event, in one transaction, while node holds its lease (else it does nothing: another
	// node took the event over). A send already written for the event is not written twice.
	FinishNotificationEvent(ctx context.Context, node string, eventID int64, logs []NotificationLog, sends []NotificationSend) error
	// FinishNotificationEvents is FinishNotificationEvent for several events, in one
	// transaction.
	FinishNotificationEvents(ctx context.Context, node string, xs []ExpandedEvent) error
	// ClaimNotificationSends records the attempts done, each as FinishNotificationSend
	// does, then leases at most l.Limit due sends, counting an attempt on each; in one
	// transaction.
	ClaimNotificationSends(ctx context.Context, l Lease, done []NotificationAttempt) ([]NotificationSend, error)
	// FinishNotificationSend records an attempt: the log record, then the send deleted
	// (done) or pending again at s.NextAt, while node holds its lease.
	FinishNotificationSend(ctx context.Context, node string, s NotificationSend, log NotificationLog, done bool) error
	// NotificationLogs pages an app's log.
	NotificationLogs(ctx context.Context, appID string, q NotificationLogQuery) ([]NotificationLog, error)
	// PurgeNotificationLogs drops log records made before before, a batch at a time.
	PurgeNotificationLogs(ctx context.Context, before int64) error
	// AllProviders lists every provider of an app.
	AllProviders(ctx context.Context, appID string) ([]Provider, error)
	// OnlineUIDs lists those of uids whose status is available: a socket is open on some
	// node.
	OnlineUIDs(ctx context.Context, appID string, uids []string) ([]string, error)
	// ReadMarker is the id of the last message uid read in a conversation; 0 when none.
	ReadMarker(ctx context.Context, appID, uid, conversationID string) (int64, error)
}

// NotificationDelivery is the store the notification workers use.
func (s Notifications) NotificationDelivery() NotificationDeliveryStore { return s.store }

// notifying reports whether the app has a notification provider, from a per-app cache as
// stale as the key cache at most: an app without providers pays a map lookup on the hot
// path. A provider change on this node refreshes it at once. When the providers cannot be
// read the event is written anyway: its expansion decides.
func (s *Service) notifying(ctx context.Context, appID string) bool {
	c := s.keys.notifiers
	if v, ok := c.get(appID); ok {
		return v
	}
	gen := c.generation()
	ps, err := s.cachedProviders(ctx, appID)
	if err != nil {
		return true
	}
	c.put(appID, len(ps) > 0, gen)
	return len(ps) > 0
}

// providersChanged drops the app's cached notifying on this node.
func (s *Service) providersChanged(appID string) { s.keys.notifiers.evict(appID) }

// notificationEvent is the notification event of a change about message m, or nil when the
// app has no provider.
func (s *Service) notificationEvent(ctx context.Context, trigger string, m *Message) *OutboxEvent {
	if !s.notifying(ctx, m.AppID) {
		return nil
	}
	return &OutboxEvent{Kind: EventNotification, AppID: m.AppID, Trigger: trigger, ConversationID: m.ConversationID, MessageID: m.ID,
		At: time.Now().UnixMilli()}
}

// Limits of the delivery log's pages.
const (
	DefaultNotificationLogs = 100
	MaxNotificationLogs     = 1000
)

// NotificationLogs pages the app's delivery log.
func (s Notifications) NotificationLogs(ctx context.Context, p Principal, q NotificationLogQuery) ([]NotificationLog, error) {
	if q.Limit <= 0 || q.Limit > MaxNotificationLogs {
		q.Limit = DefaultNotificationLogs
	}
	ls, err := s.store.NotificationLogs(ctx, p.App.ID, q)
	if err != nil {
		return nil, internal("read notification log", err)
	}
	return ls, nil
}
