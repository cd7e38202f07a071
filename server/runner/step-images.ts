// Images that come with a user's words in a thread step (a recording's keyframes, a hand-back's screenshot): kept
// under their path in the blob store (or, for keyframes recorded before they moved there and not migrated with
// npm run storage:migrate, this instance's $DATA_DIR/files), turned into image blocks when a run replays the thread. Only paths inside the agent's recordings
// folder are read; anything else, or a file gone, becomes a note.
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { BlobStore } from '../storage/index.ts';

/** Where step images are: the blob store first, then this instance's DATA_DIR/files. */
export type StepImageSources = { blobs?: BlobStore | null; filesDir: string | null };
import type { StepImage } from '../threads/steps.ts';
import type { UserBlock } from '../models/types.ts';

/** Image blocks (each after its caption) per step sequence, for messagesFromSteps. */
export async function loadStepImages(
  steps: { sequence: number; user_images?: StepImage[] | null }[],
  agentId: number,
  sources: StepImageSources,
): Promise<Map<number, UserBlock[]>> {
  const out = new Map<number, UserBlock[]>();
  for (const step of steps) {
    if (!step.user_images?.length) continue;
    const blocks: UserBlock[] = [];
    for (const image of step.user_images) {
      const data = await readOwn(sources, agentId, image.path);
      blocks.push({ type: 'text', text: data ? image.caption : `${image.caption} [image no longer available]` });
      if (data) blocks.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: data.toString('base64') } });
    }
    out.set(step.sequence, blocks);
  }
  return out;
}

async function readOwn(sources: StepImageSources, agentId: number, path: string): Promise<Buffer | null> {
  const rel = normalize(String(path));
  if (!rel.startsWith(`agent-${agentId}/recordings/`) || rel.split('/').includes('..') || !rel.endsWith('.png')) return null;
  const stored = await sources.blobs?.get(rel).catch(() => null);
  if (stored) {
    const chunks: Buffer[] = [];
    for await (const chunk of stored.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  return sources.filesDir ? readFile(join(sources.filesDir, rel)).catch(() => null) : null;
}
