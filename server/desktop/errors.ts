// The 'none' provider: the server runs without desktops and says why (no Xvnc installed, turned off,
// misconfigured). Every start fails with DesktopUnavailable, which the API answers with 503 + the reason.

export class DesktopUnavailable extends Error {
  override name = 'DesktopUnavailable';
}

export class NoneProvider {
  constructor(readonly reason: string) {}

  async start(_agentId: number): Promise<never> {
    throw new DesktopUnavailable(this.reason);
  }
}
