// A desktop's share of the machine: processes (threads count), memory and CPU, held by a control group of
// its own (cgroup v2, or the v1 pids, memory and cpu controllers), so that a fork bomb or a memory hog in
// one desktop leaves the server and the other desktops answering. Without control groups only the number
// of processes is bounded, by RLIMIT_NPROC (per uid, and each agent has its own).
// Groups are made and removed with fs/promises: the kernel takes milliseconds over a memory group's mkdir and
// rmdir, which held the event loop at every start and stop (issue 48).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export type Limits = { pids: number; memoryMb: number; cpus: number };

const ROOT = '/sys/fs/cgroup';
const PARENT = 'agent-workspace';
const PERIOD_US = 100_000;

/**
 * The files a process writes its pid into to join the group, or the prlimit arguments that stand in; `freezer`
 * stops and resumes every process of the group at once (null: no freezer here, the desktop stays awake).
 */
export type Enforcement = { cgroupProcs: string[]; rlimits: string[]; how: string; freezer: Freezer | null };

export class DesktopLimits {
  private constructor(private dirs: string[], readonly enforcement: Enforcement) {}

  /** Makes the desktop's control group(s) with `limits`; falls back to rlimits where there are none. */
  static async open(name: string, limits: Limits): Promise<DesktopLimits> {
    const memory = limits.memoryMb * 1024 * 1024;
    const quota = Math.max(1000, Math.round(limits.cpus * PERIOD_US));
    if (existsSync(join(ROOT, 'cgroup.controllers'))) {
      // cgroup v2: one tree; the parent hands its children the controllers.
      const parent = join(ROOT, PARENT);
      await mkdir(parent, { recursive: true });
      await writeFile(join(ROOT, 'cgroup.subtree_control'), '+pids +memory +cpu');
      await writeFile(join(parent, 'cgroup.subtree_control'), '+pids +memory +cpu');
      const dir = await fresh(join(parent, name));
      await writeFile(join(dir, 'pids.max'), String(limits.pids));
      await writeFile(join(dir, 'memory.max'), String(memory));
      await writeFile(join(dir, 'memory.swap.max'), '0');
      await writeFile(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
      const freezer = existsSync(join(dir, 'cgroup.freeze')) ? new Freezer(dir, 'v2') : null;
      return new DesktopLimits([dir], { cgroupProcs: [join(dir, 'cgroup.procs')], rlimits: [], how: 'cgroup v2', freezer });
    }
    const v1 = ['pids', 'memory', 'cpu'].filter((c) => writable(join(ROOT, c)));
    if (v1.length === 3) {
      // The v1 freezer is a controller of its own, mounted or not: without it the desktop only stays awake.
      if (writable(join(ROOT, 'freezer'))) v1.push('freezer');
      const dirs = await Promise.all(v1.map((c) => fresh(join(ROOT, c, PARENT, name))));
      const [pids, mem, cpu, frozen] = dirs;
      await writeFile(join(pids, 'pids.max'), String(limits.pids));
      await writeFile(join(mem, 'memory.limit_in_bytes'), String(memory));
      // Swap counts too where the kernel accounts it; a hog must not spill into swap instead.
      if (existsSync(join(mem, 'memory.memsw.limit_in_bytes'))) await writeFile(join(mem, 'memory.memsw.limit_in_bytes'), String(memory));
      await writeFile(join(cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
      await writeFile(join(cpu, 'cpu.cfs_quota_us'), String(quota));
      const freezer = frozen ? new Freezer(frozen, 'v1') : null;
      return new DesktopLimits(dirs, { cgroupProcs: dirs.map((d) => join(d, 'cgroup.procs')), rlimits: [], how: 'cgroup v1', freezer });
    }
    const how = 'RLIMIT_NPROC only (no control groups)';
    return new DesktopLimits([], { cgroupProcs: [], rlimits: [`--nproc=${limits.pids}`], how, freezer: null });
  }

  /** Removes the groups once their processes are gone (the kernel refuses while any is left). */
  close(): Promise<void> {
    this.enforcement.freezer?.thaw(); // a frozen process cannot end: at once
    return Promise.all(this.dirs.map((dir) => rmdir(dir).catch(() => {}))).then(() => {});
  }
}

/** How long a group may take to stop every process before freezing is given up (a task stuck in the kernel). */
const FREEZE_MS = 2000;

/**
 * The cgroup freezer of one desktop's group: every process keeps its memory and gets no CPU until thawed. Thawing
 * is one write, so a viewer or a run can wake the desktop without waiting; freezing settles (FREEZING, then
 * FROZEN) and is undone when it does not within FREEZE_MS.
 */
export class Freezer {
  constructor(private dir: string, private version: 'v1' | 'v2') {}

  /** Freezes the group; false (and thawed again) when the kernel did not finish in time or refused. */
  async freeze(): Promise<boolean> {
    try {
      if (this.version === 'v2') writeFileSync(join(this.dir, 'cgroup.freeze'), '1');
      else writeFileSync(join(this.dir, 'freezer.state'), 'FROZEN');
      for (const end = Date.now() + FREEZE_MS; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
        if (this.frozen()) return true;
      }
    } catch {}
    this.thaw();
    return false;
  }

  /** Lets the group run again (idempotent, synchronous). */
  thaw(): void {
    try {
      if (this.version === 'v2') writeFileSync(join(this.dir, 'cgroup.freeze'), '0');
      else writeFileSync(join(this.dir, 'freezer.state'), 'THAWED');
    } catch {} // the group is gone: nothing left to thaw
  }

  frozen(): boolean {
    try {
      if (this.version === 'v2') return /^frozen 1$/m.test(readFileSync(join(this.dir, 'cgroup.events'), 'utf8'));
      return readFileSync(join(this.dir, 'freezer.state'), 'utf8').trim() === 'FROZEN';
    } catch {
      return false;
    }
  }
}

/** A group of that name, emptied of a killed server's leftovers first. */
/**
 * The group `dir`, made anew, and the empty groups an earlier start of the same uid left beside it (a killed server's:
 * each start's name is its own, aw-<uid>-<hex>). A group with processes still in it stays: the kernel refuses.
 */
async function fresh(dir: string): Promise<string> {
  const stem = /^(aw-\d+-)[0-9a-f]+$/.exec(basename(dir))?.[1];
  for (const sibling of stem && existsSync(dirname(dir)) ? await readdir(dirname(dir)) : []) {
    if (sibling.startsWith(stem!) && sibling !== basename(dir)) {
      // A killed server's desktop may have been asleep: frozen, its processes could not even be killed.
      thawGroup(join(dirname(dir), sibling));
      await rmdir(join(dirname(dir), sibling)).catch(() => {}); // still in use, or not a group
    }
  }
  if (existsSync(dir)) {
    thawGroup(dir);
    for (const pid of (await readFile(join(dir, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
    await rmdir(dir).catch(() => {});
  }
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Lets a group's processes run again, whichever freezer it has (none: nothing to do). */
function thawGroup(dir: string): void {
  for (const [file, value] of [['freezer.state', 'THAWED'], ['cgroup.freeze', '0']]) {
    try {
      if (existsSync(join(dir, file))) writeFileSync(join(dir, file), value);
    } catch {} // gone meanwhile
  }
}

function writable(dir: string): boolean {
  try {
    return existsSync(join(dir, 'cgroup.procs')) && (writeFileSync(join(dir, 'cgroup.procs'), '', { flag: 'a' }), true);
  } catch {
    return false;
  }
}
