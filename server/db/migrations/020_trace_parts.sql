-- What a model call sent, each part stored once (issue 43): a trace kept the whole conversation so far, so a
-- thread's traces grew with the square of its length. Now a trace keeps its request without its messages (and
-- without its system prompt and tools, the same every call), each kept once per owner under a SHA-256 of its
-- JSON, and request_parts says which (server/traces/sent-requests.ts: what the thread's previous trace sent, and
-- what this one added). The parts go with their owner.
-- Traces written before this keep their whole request (request_parts NULL).
CREATE TABLE llm_trace_parts (
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  hash text NOT NULL,
  body jsonb NOT NULL,
  PRIMARY KEY (owner_id, hash)
);
ALTER TABLE llm_traces ADD COLUMN request_parts jsonb;
