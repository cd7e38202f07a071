-- Every foreign key gets an index that starts with its columns (issue 43): deleting a thread, user or agent makes
-- the database find the rows that refer to it, and without an index that is a scan of the whole table (a thread's
-- delete read all of chat_messages). test/server/migrations.test.ts fails on a foreign key without one.
CREATE INDEX billing_portal_tokens_user_id_idx ON billing_portal_tokens (user_id);
CREATE INDEX chat_messages_thread_id_idx ON chat_messages (thread_id);
CREATE INDEX llm_traces_agent_id_idx ON llm_traces (agent_id);
CREATE INDEX password_resets_user_id_idx ON password_resets (user_id);
CREATE INDEX password_resets_created_by_idx ON password_resets (created_by);
CREATE INDEX recordings_thread_id_idx ON recordings (thread_id);
CREATE INDEX reports_agent_id_idx ON reports (agent_id);
CREATE INDEX reports_thread_id_idx ON reports (thread_id);
CREATE INDEX uploaded_files_owner_id_idx ON uploaded_files (owner_id);
