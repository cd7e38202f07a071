// The spawner's own program, run by `node -e` (a string, so that it works from the bundle dist/server.mjs as from the
// sources). It is small on purpose: a fork copies the page tables of the process that forks, so a Node process of
// a few MB forks in well under a millisecond where the server, at 800 MB, stalls every request for ~40 ms (issue 48).
// Lines of JSON on stdin ask; lines of JSON on stdout answer. A child's stdio is a unix socket the spawner connects
// to the server's listener (its first bytes name the stream) and hands to the child: nothing of it runs through
// here, so a child outlives the spawner. Children are detached (their own process group): a signal goes to the group.
// The server gone (its pipe closed), the spawner ends every child it started or adopted (a dead spawner's, still
// running), as the server's death ended them when it forked them itself (bwrap's --die-with-parent).
export const SPAWNER_PROGRAM = String.raw`
'use strict';
const { spawn } = require('node:child_process');
const net = require('node:net');
const { readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
// The folder of the server's socket for children's pipes: removed as the spawner ends after the server (killed, it
// removed nothing).
const socketDir = process.argv[1];
const children = new Map();
const adopted = new Map();
process.stdout.on('error', () => process.exit(0)); // the server is gone
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');

function connect(path, token) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path);
    socket.pause(); // never read: what the server writes is the child's
    socket.once('error', reject);
    socket.once('connect', () => socket.write(token, (err) => {
      if (err) return reject(err);
      // Blocking, as a pipe of Node's is for its child: the flag is the child's too, and libuv clears it on fds 0-2
      // only (bwrap reads --args on fd 3 and on, and fails on EAGAIN).
      socket._handle.setBlocking(true);
      resolve(socket);
    }));
  });
}

async function start(m) {
  const sockets = [];
  try {
    const stdio = [];
    for (const [fd, s] of m.stdio.entries()) {
      // The spawner's stdout is its answers to the server: a child's inherited stdout is the server's stderr instead.
      if (s === 'inherit') stdio.push(fd === 0 ? 'ignore' : fd <= 2 ? 2 : 'ignore');
      else if (typeof s === 'string') stdio.push(s);
      else {
        const socket = await connect(m.socket, s.token);
        sockets.push(socket);
        stdio.push(socket);
      }
    }
    const child = spawn(m.command, m.args, {
      env: m.env, cwd: m.cwd, stdio, detached: m.detached, ...(m.uid === undefined ? {} : { uid: m.uid, gid: m.gid }),
    });
    for (const socket of sockets) socket.destroy(); // the child holds its own copies
    child.once('error', (err) => send({ id: m.id, type: 'error', message: err.message, code: err.code }));
    if (child.pid === undefined) return;
    children.set(m.id, { child, group: m.detached });
    send({ id: m.id, type: 'pid', pid: child.pid });
    child.once('exit', (code, signal) => {
      children.delete(m.id);
      send({ id: m.id, type: 'exit', code, signal });
    });
  } catch (err) {
    for (const socket of sockets) socket.destroy();
    send({ id: m.id, type: 'error', message: err.message, code: err.code });
  }
}

function kill(m) {
  const { child } = children.get(m.id) ?? {};
  if (!child || child.exitCode !== null || child.signalCode !== null) return; // reaped: its pid may be another's now
  try {
    process.kill(m.group ? -child.pid : child.pid, m.signal);
  } catch {
    try { child.kill(m.signal); } catch {}
  }
}

/** The process's start time (/proc/<pid>/stat, field 22): the same pid and start time are the same process. */
function startTime(pid) {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return null;
  }
}

function adopt(m) {
  const started = startTime(m.pid);
  if (started) adopted.set(m.pid, { started, group: m.group });
}

/**
 * The freezer files of the control groups the processes of group pgid are in (/proc, written by the kernel): a
 * sleeping desktop is frozen, and a frozen process does not die of SIGKILL until it is thawed.
 */
function freezersOf(pgid) {
  const files = new Set();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync('/proc/' + entry + '/stat', 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      for (const line of readFileSync('/proc/' + entry + '/cgroup', 'latin1').split('\n')) {
        const [, controllers, path] = line.split(':');
        if (!path || path.includes('..')) continue;
        if (controllers.split(',').includes('freezer')) files.add('/sys/fs/cgroup/freezer' + path + '/freezer.state');
        else if (controllers === '') files.add('/sys/fs/cgroup' + path + '/cgroup.freeze');
      }
    } catch {} // ended meanwhile
  }
  return files;
}

function endAll() {
  const end = (pid, group) => {
    const freezers = group ? freezersOf(pid) : new Set();
    try { process.kill(group ? -pid : pid, 'SIGKILL'); } catch {}
    for (const file of freezers) {
      try { writeFileSync(file, file.endsWith('freezer.state') ? 'THAWED' : '0'); } catch {} // not frozen, or not ours to thaw
    }
  };
  for (const { child, group } of children.values()) if (child.exitCode === null && child.signalCode === null) end(child.pid, group);
  for (const [pid, { started, group }] of adopted) if (startTime(pid) === started) end(pid, group);
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const m = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (m.type === 'spawn') start(m);
    else if (m.type === 'kill') kill(m);
    else if (m.type === 'adopt') adopt(m);
  }
});
process.stdin.once('end', () => {
  endAll();
  if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  process.exit(0);
});
send({ type: 'ready', pid: process.pid });
`;
