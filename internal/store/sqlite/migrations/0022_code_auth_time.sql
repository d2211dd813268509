-- When the user behind an authorization code last logged in (unix
-- milliseconds, as every time here): the id_token's auth_time (OpenID
-- Connect Core §2), which clients check against the max_age they asked
-- for. 0 for codes issued before this column: the grant's creation time
-- stands in.
ALTER TABLE oauth_codes ADD COLUMN auth_time BIGINT NOT NULL DEFAULT 0;
