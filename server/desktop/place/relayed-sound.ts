// The desktop's sound between instances: the holder serves /internal/desktops/<id>/sound (the mimetype first, or
// null without a sound server, then PCM while the other side says 'on'); the other instance's relayed desktop
// gets a DesktopSoundSource from it, so capture runs on the holder only while a viewer somewhere listens.
import { WebSocket } from 'ws';
import type { RfbDesktop } from '../rfb/desktop.ts';
import type { DesktopSoundSource } from '../types.ts';
import { keepAlive, openInternal, soundPath, type Peer } from './internal-call.ts';

/** The holder's desktop sound, relayed; null when its desktop has none. Capture runs there only while someone listens here. */
export async function connectSound(o: Peer & { agentId: number }): Promise<(DesktopSoundSource & { close(): void }) | null> {
  const { ws, opened } = openInternal(o, soundPath(o.agentId), 5000);
  const listeners = new Set<(chunk: Buffer) => void>();
  let mimetype: string | null = null;
  const first = new Promise<string | null>((resolve, reject) => {
    ws.once('message', (data: Buffer, binary: boolean) => (binary ? reject(new Error('sound: no mimetype')) : resolve(JSON.parse(String(data)).mimetype)));
    ws.once('close', () => resolve(null));
    setTimeout(() => resolve(null), 5000).unref();
  });
  first.catch(() => {}); // awaited below, unless the socket never opens
  await opened;
  mimetype = await first;
  if (!mimetype) {
    ws.close();
    return null;
  }
  keepAlive(ws);
  ws.on('message', (data: Buffer, binary: boolean) => {
    if (binary) for (const listener of listeners) listener(data);
  });
  const send = (text: string) => ws.readyState === WebSocket.OPEN && ws.send(text);
  return {
    mimetype,
    listen(onChunk) {
      listeners.add(onChunk);
      if (listeners.size === 1) send('on');
      return () => {
        if (listeners.delete(onChunk) && listeners.size === 0) send('off');
      };
    },
    close: () => ws.close(),
  };
}

/** Serves one sound socket: the mimetype (null without sound), then PCM while the other side says 'on'. */
export function serveSound(ws: WebSocket, desktop: RfbDesktop): void {
  const sound = desktop.sound;
  ws.on('error', () => ws.terminate()); // a bad frame from the other side ends this socket ('close' follows), nothing else
  ws.send(JSON.stringify({ mimetype: sound?.mimetype ?? null }));
  if (!sound) return void ws.close(1000);
  keepAlive(ws);
  let off: (() => void) | null = null;
  const stop = () => {
    off?.();
    off = null;
  };
  ws.on('message', (data: Buffer) => {
    const text = String(data);
    if (text === 'on' && !off) {
      // Late sound is worthless: a chunk waiting behind a backlog is dropped.
      off = sound.listen((chunk) => ws.bufferedAmount < 256 * 1024 && ws.send(chunk, { binary: true }));
    } else if (text === 'off') stop();
  });
  const end = () => {
    stop();
    desktop.off('closed', end);
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  };
  ws.on('close', end);
  desktop.on('closed', end);
}

