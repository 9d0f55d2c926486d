-- The change log is PostgreSQL's (issue 28, sqlstore/changelog.go): on SQLite one node serves
-- the database and its changes never leave the process. This migration keeps the two
-- dialects' numbers in step.
SELECT 1;
