-- The calls still ringing, oldest first: the sweep that marks those nobody answered in
-- time unanswered (chat.ExpireRingingCalls) reads them across apps.
CREATE INDEX calls_ringing ON calls (initiated_at) WHERE status = 'initiated';
