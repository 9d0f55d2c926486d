package chat

import "context"

// Each aggregate's file declares its small storage interface (AppStore in apps.go,
// UserStore in users.go, …); Store composes them, and Tx the parts that run inside one
// transaction. sqlstore implements both for SQLite and PostgreSQL. Storage is dumb: rules
// live in Service. Every method takes the app id and scopes its SQL by it.

// Tx is the store inside one write transaction (Store.Transact), for rules that read, decide
// and write together. Its methods run with the transaction's own context.
type Tx interface {
	APIKeyTx
	MessageTx
	GroupTx
	ConversationTx
	BlockTx
	PinTx
	AuthTokenTx
	FriendTx
	RoleTx
	FeatureTx
	PermissionTx
	WebhookTx
	NotificationTx
	ProviderTx
	PushTokenTx
	ImportTx
	ModerationTx
	CallTx
	ThreadTx
	FileTx
}

// Store is everything natter keeps.
type Store interface {
	// Transact runs fn in one write transaction: committed when fn returns nil, rolled back
	// when it returns an error or panics. A caller that gives up does not abort it once it
	// has started. fn may run more than once, so it must do nothing but its calls on tx and
	// set its results afresh each time.
	Transact(ctx context.Context, fn func(tx Tx) error) error
	AppStore
	APIKeyStore
	UserStore
	MessageStore
	ReactionStore
	GroupStore
	MemberStore
	HistoryStore
	ConversationStore
	ReceiptStore
	BlockStore
	PinStore
	AuthTokenStore
	QuotaStore
	IdempotencyStore
	RealtimeStore
	OnlineStore
	RoleStore
	FeatureStore
	PermissionStore
	PolicyStore
	WebhookStore
	FileStore
	DeliveryStore
	StatsStore
	NotificationStore
	ProviderStore
	PushTokenStore
	NotificationDeliveryStore
	AgentStore
	ModerationStore
	CallStore
	ThreadStore
	Ping(ctx context.Context) error
	Close() error
}
