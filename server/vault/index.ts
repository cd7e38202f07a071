// The credential vault (issue 45): credentials a user keeps for their agents to type into sign-in forms, sealed
// with VAULT_KEY, which the agents use and never read.
//   vault-box.ts, vault-check.ts   the key (VAULT_KEY, else $DATA_DIR/vault.key), the start's check and rewrap
//   credentials.ts, input.ts       the credentials in SQL and what a body may hold
//   grants.ts, fills.ts            which agents may use one; every fill's record
//   targets.ts, totp.ts            where a credential may be typed; RFC 6238 codes
//   verify.ts, fill.ts             where keys would go, and the fill itself; approvals.ts: "ask me before each use"
//   routes.ts                      /api/credentials, /api/credential_approvals
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { fillCredential, FillRefused, type FillDesktop, type FillDeps } from './fill.ts';
import { grantedTo, type GrantedCredential } from './grants.ts';
import { loadVaultBox, type VaultBox } from './vault-box.ts';
import { checkVaultKey } from './vault-check.ts';

export { registerVaultRoutes } from './routes.ts';
export { FillRefused, FILL_FIELDS } from './fill.ts';
export { VaultKeyError } from './vault-box.ts';
export type { GrantedCredential } from './grants.ts';

export class Vault {
  private constructor(readonly box: VaultBox, private deps: Omit<FillDeps, 'box'>) {}

  /** The key from the configuration or the data directory, checked against the database (rewrapped when it was the previous one). */
  static async open(
    config: { key: Buffer | null; previous: Buffer | null }, dataDir: string, deps: Omit<FillDeps, 'box'>, log: (line: string) => void,
  ): Promise<Vault> {
    const box = loadVaultBox(config, dataDir);
    const rewrapped = await checkVaultKey(deps.db, box);
    if (rewrapped !== null) log(`vault: ${rewrapped} values rewrapped under the new VAULT_KEY; VAULT_KEY_PREVIOUS may go now`);
    return new Vault(box, deps);
  }

  /** What the agent's model is told of its credentials: names, targets and fields. */
  granted(agentId: number): Promise<GrantedCredential[]> {
    return grantedTo(this.deps.db, agentId);
  }

  /** Types a field of a granted credential; FillRefused (for the model) when it does not. */
  fill(request: { agentId: number; threadId: number; name: string; field: string; desktop: FillDesktop | null; signal: AbortSignal }): Promise<string> {
    return fillCredential({ ...this.deps, box: this.box }, request);
  }
}

export type VaultDeps = { db: Db; bus: Bus };
