-- Recordings (teaching by demonstration): the thread the summary goes to, whether the length limit
-- ended it, and when its summary was posted. A thread step may carry images with the user's words (a
-- recording's keyframes): paths under $DATA_DIR/files, in the server's own part of it.

ALTER TABLE recordings ADD COLUMN thread_id integer REFERENCES threads (id) ON DELETE SET NULL;
ALTER TABLE recordings ADD COLUMN auto_stopped boolean NOT NULL DEFAULT false;
ALTER TABLE recordings ADD COLUMN audio_bytes integer;
ALTER TABLE recordings ADD COLUMN summarized_at timestamptz;
CREATE INDEX recordings_user ON recordings (user_id);

ALTER TABLE thread_steps ADD COLUMN user_images jsonb NOT NULL DEFAULT '[]';
