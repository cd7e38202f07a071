// Agents mapped to VNC servers that already run elsewhere (remote VMs, containers): the way past one
// machine. DESKTOP_VNC_ENDPOINTS="41=host:5901,42=unix:/run/vnc/42.sock,43=secret@10.0.0.5:5900";
// a password before '@' (or DESKTOP_VNC_PASSWORD for all) enables VNC authentication. Files cannot be put
// on such desktops (RFB has no file transfer), so uploads only stay attached to the agent.
import type { RfbTarget } from '../rfb/client.ts';
import { RfbClient } from '../rfb/client.ts';
import { RfbDesktop } from '../rfb/desktop.ts';

export type VncEndpoint = { target: RfbTarget; password?: string };

/** Parses the endpoint list; malformed entries throw with the entry named. */
export function parseEndpoints(spec: string, defaultPassword?: string): Map<number, VncEndpoint> {
  const out = new Map<number, VncEndpoint>();
  for (const raw of spec.split(/[,\s]+/).filter(Boolean)) {
    const m = /^(\d+)=(?:([^@]*)@)?(.+)$/.exec(raw);
    if (!m) throw new Error(`DESKTOP_VNC_ENDPOINTS: bad entry "${raw}" (expected id=host:port or id=unix:/path)`);
    const [, id, password, address] = m;
    let target: RfbTarget;
    if (address.startsWith('unix:')) target = { path: address.slice(5) };
    else {
      const hp = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address);
      if (!hp || Number(hp[2]) > 65535) throw new Error(`DESKTOP_VNC_ENDPOINTS: bad address in "${raw}"`);
      target = { host: hp[1], port: Number(hp[2]) };
    }
    out.set(Number(id), { target, password: password ?? defaultPassword });
  }
  return out;
}

export class VncProvider {
  constructor(private endpoints: Map<number, VncEndpoint>, private frameInterval?: { watched: number; unwatched: number }) {}

  has(agentId: number): boolean {
    return this.endpoints.has(agentId);
  }

  get size(): number {
    return this.endpoints.size;
  }

  async start(agentId: number): Promise<RfbDesktop> {
    const endpoint = this.endpoints.get(agentId);
    if (!endpoint) throw new Error(`No VNC endpoint is configured for agent ${agentId}`);
    const rfb = await RfbClient.connect(endpoint.target, { password: endpoint.password, timeout: 10_000 });
    // Stopping only disconnects: the remote machine keeps running.
    return new RfbDesktop(agentId, rfb, { frameInterval: this.frameInterval });
  }
}
