-- Only answered interactions name an original message: the index leaves
-- out the others (original_message_id 0), so that recording an
-- invocation writes one index fewer. DeleteMessage's lookup says
-- original_message_id <> 0 to use it.
DROP INDEX interactions_by_original_message;
CREATE INDEX interactions_by_original_message ON interactions (original_message_id) WHERE original_message_id <> 0;
