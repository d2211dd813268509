-- An app's Interactions Endpoint URL: where invocations are delivered
-- (empty: over the gateway).
ALTER TABLE applications ADD COLUMN interactions_endpoint_url TEXT NOT NULL DEFAULT '';
