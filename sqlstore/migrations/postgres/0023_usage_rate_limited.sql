-- The requests each app had refused over its rate limits, per 5-minute bucket, counted by
-- every node like the other usage figures (chat/stats_rollup.go); the console shows them.
ALTER TABLE usage_buckets ADD COLUMN rate_limited BIGINT NOT NULL DEFAULT 0;
