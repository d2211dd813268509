-- The bytes of the files uploaded with messages (their attachments), so
-- that slashd serves them (docs/design.md, "Uploaded files"). id is the
-- attachment's id, a snowflake: the oldest files have the smallest ids,
-- and the quota evicts those first (by_age lets it sum sizes newest
-- first without reading the files). A file goes with its message, by
-- the cascade: every path that deletes messages takes their files.
CREATE TABLE message_files (
    id           BIGINT PRIMARY KEY,
    message_id   BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    channel_id   BIGINT NOT NULL,
    filename     TEXT   NOT NULL,
    content_type TEXT   NOT NULL,
    size         BIGINT NOT NULL,
    data         BYTEA  NOT NULL
);
CREATE INDEX message_files_by_message ON message_files (message_id);
CREATE INDEX message_files_by_age ON message_files (id, size);

-- The key file URLs are signed with (the CDN's ex/is/hm query): one row,
-- shared by every node.
CREATE TABLE file_signing_key (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    key BYTEA NOT NULL
);
