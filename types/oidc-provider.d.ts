// The little of oidc-provider (a dev dependency: the real OpenID Provider the tests sign in with) that the
// fixtures use; its own types package would bring koa's and half a dozen more.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type ClaimsFor = (use: string, scope: string) => Record<string, unknown> | Promise<Record<string, unknown>>;
  export type Account = { accountId: string; claims: ClaimsFor };
  export type Ctx = { oidc: { client: { clientId: string }; session: { accountId: string; grantIdFor(clientId: string): string | undefined }; result?: any } };
  export type Configuration = Record<string, unknown> & {
    findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined>;
    loadExistingGrant?: (ctx: Ctx) => Promise<unknown>;
  };

  export type ProviderClient = { backchannelLogout(sub: string, sid: string): Promise<void> };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
    proxy: boolean;
    Client: { find(id: string): Promise<ProviderClient | undefined> };
    Grant: { new (init: { clientId: string; accountId: string }): Grant; find(id: string): Promise<Grant | undefined> };
  }
  export type Grant = { addOIDCScope(scope: string): void; addOIDCClaims(claims: string[]): void; save(): Promise<string> };
}
