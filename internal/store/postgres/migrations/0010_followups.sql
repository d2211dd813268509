-- followups counts the follow-up messages an interaction created (the
-- real service limits apps reached only through a user's install to 5).
ALTER TABLE interactions ADD COLUMN followups INTEGER NOT NULL DEFAULT 0;
