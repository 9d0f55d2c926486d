package wire

// Reaction is a reaction record.
type Reaction struct {
	ID        string `json:"id"`
	MessageID string `json:"messageId"`
	Reaction  string `json:"reaction"`
	UID       string `json:"uid"`
	ReactedAt int64  `json:"reactedAt"`
	ReactedBy User   `json:"reactedBy"`
}
