-- A claim (sqlstore/webhookdeliveries.go) must cost about the same with a backlog of
-- thousands as with none, whatever the planner's statistics say of a table that grows from
-- nothing in seconds (PostgreSQL may not have analyzed it yet): each of its lookups gets one
-- index that fits it, and no other that half fits.
-- The order check (no earlier pending delivery of the webhook and conversation) names the
-- app too, so the app leads the index it probes.
DROP INDEX webhook_deliveries_order;
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (app_id, webhook_id, conversation_id, event_id) WHERE state = 0;
-- The cap on attempts in flight counts the leased deliveries, once per claim: the few rows
-- whose lease runs, not every pending one, let alone the log of delivered ones.
CREATE INDEX webhook_deliveries_held ON webhook_deliveries (lease_until) WHERE state = 0;
-- Due deliveries in the claim's order (next_at, id), so that ORDER BY … LIMIT can read them
-- in order and stop, rather than sort every due row.
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at, id) WHERE state = 0;
-- A queue: every claim and attempt updates a row. Analyze and vacuum it after a few percent
-- of changes (the defaults wait for 10 % and 20 %), so that the planner soon learns that a
-- backlog has grown and reads due rows in order, and dead rows do not pile up.
ALTER TABLE webhook_deliveries SET (autovacuum_analyze_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05);
