// A thread's steps as a run reads and writes them: the thread to replay, the user's input that came
// after a given step, the model's turn as a new step, and its tool calls as they change. (The steps
// page and the user's input are in threads.ts, beside the queue they go with.)
import type { Db, Queryable, Row } from '../db/db.ts';

export const STEP_COLUMNS = 'id, thread_id, sequence, reasoning_text, assistant_text, user_text, user_files, tool_calls, run_id, created_at, updated_at';

/** An image that comes with the user's words: a path under $DATA_DIR/files and what it shows. */
export type StepImage = { path: string; caption: string };

/** A step written with the user's words or files. */
const HAS_INPUT = `(user_text <> '' OR user_files <> '[]'::jsonb)`;

/** Every step of the thread, oldest first, with what a replay needs (`T`: the caller's view of a row). */
export async function stepsToReplay<T extends Row>(db: Queryable, threadId: number): Promise<(T & { user_images: StepImage[] })[]> {
  return db.query<T & { user_images: StepImage[] }>(
    `SELECT sequence, user_text, user_files, user_images, reasoning_text, assistant_text, tool_calls, model_content
     FROM thread_steps WHERE thread_id = $1 ORDER BY sequence`,
    [threadId]);
}

/** The user's input written after step `sequence`, oldest first. */
export async function userInputAfter(db: Queryable, threadId: number, sequence: number) {
  return db.query<{ sequence: number; user_text: string; user_files: string[] }>(
    `SELECT sequence, user_text, user_files FROM thread_steps WHERE thread_id = $1 AND sequence > $2 AND ${HAS_INPUT} ORDER BY sequence`,
    [threadId, sequence]);
}

/** Whether the user wrote after step `sequence`. */
export async function hasUserInputAfter(db: Queryable, threadId: number, sequence: number): Promise<boolean> {
  const rows = await db.query(`SELECT 1 FROM thread_steps WHERE thread_id = $1 AND sequence > $2 AND ${HAS_INPUT} LIMIT 1`, [threadId, sequence]);
  return rows.length > 0;
}

export type ModelTurn = { reasoning: string; text: string; toolCalls: unknown[]; content: unknown[] };

/** The model's turn as the thread's next step (the thread row locked for the numbering), written by run `runId`; the new row. */
export async function insertModelStep<T extends Row>(db: Db, threadId: number, turn: ModelTurn, runId: number | null = null): Promise<T> {
  return db.tx(async (q) => {
    await q.query('SELECT id FROM threads WHERE id = $1 FOR UPDATE', [threadId]);
    const [{ next }] = await q.query<{ next: number }>('SELECT COALESCE(max(sequence), 0) + 1 AS next FROM thread_steps WHERE thread_id = $1', [threadId]);
    const [row] = await q.query<T>(
      `INSERT INTO thread_steps (thread_id, sequence, reasoning_text, assistant_text, tool_calls, model_content, run_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${STEP_COLUMNS}`,
      [threadId, next, turn.reasoning, turn.text, JSON.stringify(turn.toolCalls), JSON.stringify(turn.content), runId]);
    await q.query('UPDATE threads SET updated_at = now() WHERE id = $1', [threadId]);
    return row;
  });
}

/** Stores a step's tool calls; the new updated_at, or null when the step is gone. */
export async function saveToolCalls(db: Queryable, stepId: number, toolCalls: unknown[]): Promise<Date | null> {
  const [row] = await db.query<{ updated_at: Date }>(
    'UPDATE thread_steps SET tool_calls = $2, updated_at = now() WHERE id = $1 RETURNING updated_at', [stepId, JSON.stringify(toolCalls)]);
  return row?.updated_at ?? null;
}
