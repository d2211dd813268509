-- An answered invocation wrote four index pages besides its two rows:
-- interactions by channel and by original message, messages by channel.
-- The index by original message served only DeleteMessage, which cleared
-- the reference of the interactions naming the message it deleted. A
-- read of an interaction now checks that its original message still
-- exists (one lookup by the message's primary key) and DeleteMessage
-- leaves the interactions alone, so the index goes: one page, a WAL
-- frame, fewer per answered invocation.
DROP INDEX interactions_by_original_message;
