// This server as an OpenID Connect relying party, on openid-client (a certified library): discovery, the
// authorization URL (code flow, PKCE S256, state, nonce), the code exchange with the ID token's checks, userinfo when
// the ID token lacks the claims, and the provider's end_session URL. Logout tokens are checked in logout-token.ts.
// Discovery is tried at start and again (at most every RETRY_MS) when a sign-in needs it and it had failed.
import * as client from 'openid-client';
import { importJWK, importPKCS8 } from 'jose';
import type { OidcConfig } from '../config/index.ts';
import { SsoRefusal } from './refusal.ts';

/** exp, iat and nbf may be off by this much (issue 49). */
export const CLOCK_SKEW_SECONDS = 60;
const RETRY_MS = 10_000;
const TIMEOUT_SECONDS = 10;
/** Only asymmetric signatures: never `none`, never HS* (a client secret is no proof of who signed). */
export const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/;

/** What a finished sign-in says about the user: the ID token's claims, with userinfo's where it had none. */
export type SignedInClaims = {
  issuer: string;
  sub: string;
  email: string | null;
  emailVerified: boolean | null;
  name: string | null;
  groups: string[];
  sid: string | null;
  idToken: string;
};

export type Flow = { state: string; nonce: string; codeVerifier: string; redirectUri: string };

export class RelyingParty {
  private config: client.Configuration | null = null;
  private discovering: Promise<client.Configuration> | null = null;
  private failedAt = 0;
  private lastError: Error | null = null;

  constructor(readonly settings: OidcConfig, private log: { info: (m: string) => void; error: (m: string) => void }) {}

  /** The provider's metadata and this client, discovered once; a failure is logged and retried later. */
  discover(): Promise<client.Configuration> {
    if (this.config) return Promise.resolve(this.config);
    if (this.lastError && Date.now() - this.failedAt < RETRY_MS) return Promise.reject(this.lastError);
    return (this.discovering ??= this.tryDiscovery().finally(() => (this.discovering = null)));
  }

  private async tryDiscovery(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret, privateKey } = this.settings;
    try {
      const auth = privateKey
        ? client.PrivateKeyJwt({ key: await importKey(privateKey), ...(privateKey.kid ? { kid: privateKey.kid } : {}) })
        : client.ClientSecretBasic(clientSecret!);
      const metadata: Partial<client.ClientMetadata> = { [client.clockTolerance]: CLOCK_SKEW_SECONDS };
      const insecure = new URL(issuer).protocol === 'http:'; // a loopback issuer only (config/oidc.ts)
      const config = await client.discovery(new URL(issuer), clientId, metadata, auth, {
        timeout: TIMEOUT_SECONDS, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      });
      // The library would take an ID token from the token endpoint on TLS alone (OpenID Connect Core 3.1.3.7 allows it);
      // its signature is checked all the same, so a token endpoint that is not the provider's cannot sign anyone in.
      client.enableNonRepudiationChecks(config);
      const algs = config.serverMetadata().id_token_signing_alg_values_supported ?? ['RS256'];
      if (!algs.some((alg) => ASYMMETRIC.test(alg))) {
        throw new Error(`it signs ID tokens only with ${algs.join(', ')}; this server accepts asymmetric signatures only (RS*, PS*, ES*, EdDSA)`);
      }
      const taken = algs.filter((a) => ASYMMETRIC.test(a)).join(', ');
      this.log.info(`sso: ${issuer} answered discovery; "${this.settings.name}" signs people in (ID tokens: ${taken})`);
      this.lastError = null;
      return (this.config = config);
    } catch (err) {
      const reason = describe(err);
      this.log.error(`sso: the OpenID provider OIDC_ISSUER=${issuer} cannot be used: ${reason}. Sign-in with it fails until it answers `
        + '(tried again at the next sign-in); password sign-in is not affected');
      this.failedAt = Date.now();
      throw (this.lastError = new SsoRefusal('unreachable', `discovery failed: ${reason}`));
    }
  }

  /** A new flow's secrets and the provider's authorization URL for it. */
  async begin(redirectUri: string): Promise<{ flow: Flow; url: URL }> {
    const config = await this.discover();
    const flow = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier(), redirectUri };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: this.settings.scopes,
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { flow, url };
  }

  /**
   * The callback: the response's state and issuer, the code exchanged with the PKCE verifier, and the ID token
   * checked (signature against the JWKS, refetched on an unknown kid at most once a minute; the algorithms from
   * discovery; iss, aud, azp with several audiences, exp and iat within CLOCK_SKEW_SECONDS, nonce). Userinfo fills in
   * claims the ID token lacks (its sub must be the ID token's).
   */
  async finish(currentUrl: URL, flow: Flow): Promise<SignedInClaims> {
    const config = await this.discover();
    // The library reads the callback's parameters off the URL it is given and takes redirect_uri from it.
    const callback = new URL(flow.redirectUri);
    callback.search = currentUrl.search;
    const tokens = await client.authorizationCodeGrant(config, callback, {
      expectedState: flow.state, expectedNonce: flow.nonce, pkceCodeVerifier: flow.codeVerifier, idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) throw new SsoRefusal('id_token', 'no ID token in the token response');
    // The library checks that iat is a number and not over an hour old; one from the future is ours to refuse.
    if (claims.iat > Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS) throw new SsoRefusal('id_token', 'the ID token was issued in the future (iat)');
    let all: Record<string, unknown> = { ...claims };
    const wanted = ['email', this.settings.groupsClaim];
    if (wanted.some((claim) => all[claim] === undefined) && config.serverMetadata().userinfo_endpoint) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      all = { ...info, ...claims }; // the ID token's own claims win
    }
    const groups = all[this.settings.groupsClaim];
    return {
      issuer: claims.iss,
      sub: claims.sub,
      email: typeof all.email === 'string' && all.email.trim() ? all.email.trim() : null,
      // Some providers send "true" as text; only a JSON true (or "true") counts as verified.
      emailVerified: all.email_verified === true || all.email_verified === 'true' ? true : all.email_verified === undefined ? null : false,
      name: typeof all.name === 'string' ? all.name : null,
      groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : typeof groups === 'string' ? [groups] : [],
      sid: typeof claims.sid === 'string' ? claims.sid : null,
      idToken: tokens.id_token,
    };
  }

  /** Where a signed-out browser goes to end its provider session (RP-initiated logout); null when the provider has none. */
  async endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | null> {
    const config = await this.discover().catch(() => null);
    if (!config?.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirectUri }).href;
  }

  /** The discovered issuer, its JWKS URI and the ID token algorithms it uses that we accept (for logout tokens). */
  async keys(): Promise<{ issuer: string; jwksUri: string; algorithms: string[] }> {
    const meta = (await this.discover()).serverMetadata();
    if (!meta.jwks_uri) throw new SsoRefusal('unreachable', 'the provider publishes no jwks_uri');
    const algorithms = (meta.id_token_signing_alg_values_supported ?? ['RS256']).filter((alg) => ASYMMETRIC.test(alg));
    return { issuer: meta.issuer, jwksUri: meta.jwks_uri, algorithms };
  }
}

async function importKey(key: NonNullable<OidcConfig['privateKey']>): Promise<CryptoKey> {
  // config/oidc.ts turned a JWK into PKCS#8 too; importJWK stays for a key handed over as a JWK by tests.
  return (key.pem.startsWith('{') ? importJWK(JSON.parse(key.pem), key.alg) : importPKCS8(key.pem, key.alg)) as Promise<CryptoKey>;
}

/** One line on why the provider could not be used: the network's error code, or the library's message. */
export function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string }; code?: string };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${cause && !String(e?.message).includes(cause) ? ` (${cause})` : ''}`;
}
