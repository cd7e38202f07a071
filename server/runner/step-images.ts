// Images that come with a user's words in a thread step (a recording's keyframes): stored as paths under
// $DATA_DIR/files in the server's own part of it, turned into image blocks when a run replays the thread.
// Only paths inside the agent's recordings folder are read; anything else, or a file gone, becomes a note.
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { StepImage } from '../threads/steps.ts';
import type { UserBlock } from '../models/types.ts';

/** Image blocks (each after its caption) per step sequence, for messagesFromSteps. */
export async function loadStepImages(
  steps: { sequence: number; user_images?: StepImage[] | null }[],
  agentId: number,
  filesDir: string | null,
): Promise<Map<number, UserBlock[]>> {
  const out = new Map<number, UserBlock[]>();
  for (const step of steps) {
    if (!step.user_images?.length) continue;
    const blocks: UserBlock[] = [];
    for (const image of step.user_images) {
      const data = filesDir ? await readOwn(filesDir, agentId, image.path) : null;
      blocks.push({ type: 'text', text: data ? image.caption : `${image.caption} [image no longer available]` });
      if (data) blocks.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: data.toString('base64') } });
    }
    out.set(step.sequence, blocks);
  }
  return out;
}

async function readOwn(filesDir: string, agentId: number, path: string): Promise<Buffer | null> {
  const rel = normalize(String(path));
  if (!rel.startsWith(`agent-${agentId}/recordings/`) || rel.split('/').includes('..') || !rel.endsWith('.png')) return null;
  return readFile(join(filesDir, rel)).catch(() => null);
}
