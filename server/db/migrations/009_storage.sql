-- One storage quota for everything stored for an agent: a recording's keyframes count like its audio
-- (audio_bytes), so the quota check sees them without walking the folder.

ALTER TABLE recordings ADD COLUMN keyframe_bytes bigint NOT NULL DEFAULT 0;
