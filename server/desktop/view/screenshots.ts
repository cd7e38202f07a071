// The stored screenshot of each agent, which the agents grid shows and the agent screen shows until the
// live view connects: $DATA_DIR/files/agent-<id>/screenshot.png plus agents.screenshot_at. Written when
// someone asks for a live one (at most every 10 s), every 30 s while the screen keeps changing, and when
// a desktop stops.
import { mkdir, readFile, rename } from 'node:fs/promises';
import { writeFileOrRemove } from '../../files/safe-write.ts';
import { join } from 'node:path';
import type { Db } from '../../db/db.ts';
import type { Log } from '../../ops/log.ts';
import { agentExists, stampScreenshot } from './screenshot-stamps.ts';
import type { LocalDesktops } from '../place/local-desktops.ts';
import type { RfbDesktop } from '../rfb/desktop.ts';

const STORE_EVERY_MS = 30_000;
const ON_DEMAND_MIN_MS = 10_000;

export class ScreenshotStore {
  private storedVersion = new Map<number, number>();
  private storedAt = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private db: Db, private dataDir: string, private log: Log) {}

  path(agentId: number): string {
    return join(this.dataDir, 'files', `agent-${agentId}`, 'screenshot.png');
  }

  /** The stored PNG, or null before there ever was one. */
  async read(agentId: number): Promise<Buffer | null> {
    try {
      return await readFile(this.path(agentId));
    } catch {
      return null;
    }
  }

  /** Writes the PNG (atomically) and stamps agents.screenshot_at; skipped for a deleted agent. */
  async save(agentId: number, png: Buffer): Promise<void> {
    if (!(await agentExists(this.db, agentId))) return;
    const file = this.path(agentId);
    await mkdir(join(file, '..'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFileOrRemove(tmp, png, { flag: 'w' }); // a full disk: OutOfSpace, and no partial file
    await rename(tmp, file);
    await stampScreenshot(this.db, agentId, `agent-${agentId}/screenshot.png`);
    this.storedAt.set(agentId, Date.now());
  }

  /** Stores the desktop's current picture unless that version is already stored. */
  async saveFrom(desktop: RfbDesktop, options: { minIntervalMs?: number } = {}): Promise<void> {
    const version = desktop.version;
    if (this.storedVersion.get(desktop.agentId) === version) return;
    if (options.minIntervalMs && Date.now() - (this.storedAt.get(desktop.agentId) ?? 0) < options.minIntervalMs) return;
    this.storedVersion.set(desktop.agentId, version);
    try {
      await this.save(desktop.agentId, await desktop.screenshot());
    } catch (err) {
      this.storedVersion.delete(desktop.agentId);
      this.log.error(`screenshot of agent ${desktop.agentId} not stored: ${(err as Error).message}`);
    }
  }

  /** After a live screenshot was served: store it too, but not more often than every 10 s. */
  saveLive(agentId: number, png: Buffer): void {
    if (Date.now() - (this.storedAt.get(agentId) ?? 0) < ON_DEMAND_MIN_MS) return;
    this.storedAt.set(agentId, Date.now());
    this.save(agentId, png).catch((err) => this.log.error(`screenshot of agent ${agentId} not stored: ${err.message}`));
  }

  /** Keeps stored screenshots fresh for the manager's desktops and stores the last one on stop. */
  watch(manager: LocalDesktops): void {
    manager.onStopping = (desktop) => this.saveFrom(desktop);
    manager.on('started', (desktop: RfbDesktop) => {
      // The first picture once the apps had a moment to draw.
      setTimeout(() => !desktop.closed && void this.saveFrom(desktop), 3000).unref();
    });
    this.timer = setInterval(() => {
      for (const desktop of manager.list()) void this.saveFrom(desktop);
    }, STORE_EVERY_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
