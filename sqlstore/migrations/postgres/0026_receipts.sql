-- Receipts (chat/receipts.go): a group message's readers are the members whose markers of
-- its conversation reached it, read for a page of messages by conversation.
CREATE INDEX conversation_markers_conversation ON conversation_markers (app_id, conversation_id, delivered_id);
