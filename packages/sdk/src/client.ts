import { randomUUID } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { PbsError, retryAfterSeconds } from './errors.js';
import type { paths } from './schema.js';
import { refreshTokens, type BusinessUserTokens, type OAuthApp } from './authorization.js';

/** How the client authenticates (spec "Authentication"; each interface names its scheme). */
export type PbsAuth =
  /** A partner API key, sent as `Authorization: Bearer` (reservations, search, waitlist, subscriptions, webhooks). */
  | { apiKey: string }
  /** A bearer token obtained elsewhere. */
  | { accessToken: string }
  /** Data-ingestion credentials, HTTP Basic (advertising, listing management). */
  | { basic: { username: string; password: string } }
  /** OAuth client credentials (private reviews, engagement): the client fetches the token from `/oauth2/token` and renews it. */
  | { oauth: { clientId: string; clientSecret: string } }
  /** The operator token, for `/admin/v1/…`. */
  | { adminToken: string }
  /**
   * A business user's tokens (the Leads API), from `exchangeCode`: refreshed through your OAuth
   * client when the access token expires or is refused; `onRefresh` is told the new tokens, to keep.
   */
  | {
      businessUser: {
        clientId: string;
        clientSecret: string;
        tokens: BusinessUserTokens;
        onRefresh?: (tokens: BusinessUserTokens) => void | Promise<void>;
      };
    };

export interface PbsClientOptions {
  /** Where pbs answers, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  auth?: PbsAuth;
  /** Further attempts after a 429 or 503 (waiting what `Retry-After` says) or a network failure; default 2. */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. Default 10 s. */
  maxRetryDelayMs?: number;
  /**
   * Give every POST and DELETE an `Idempotency-Key` (a random UUID) unless the call sets one, so
   * a retry after a lost answer is replayed by pbs instead of done twice. Default true.
   */
  idempotencyKeys?: boolean;
  /** The fetch to use (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Wait between attempts (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** An openapi-fetch client typed by pbs's OpenAPI document; a non-2xx answer throws PbsError. */
export type PbsClient = Client<paths>;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT']);
/** Renew an OAuth token this long before it expires. */
const TOKEN_MARGIN_MS = 60_000;

/**
 * A typed client for pbs. Every path, parameter and body is checked against the OpenAPI
 * document; answers are typed; errors are thrown as PbsError with the catalogue's code.
 *
 * ```ts
 * const pbs = createPbsClient({ baseUrl, auth: { apiKey } });
 * const openings = await ok(
 *   pbs.GET('/v3/bookings/{business_id}/openings', { params: { path: { business_id }, query: { date, time, covers: 2 } } }),
 * );
 * ```
 */
export function createPbsClient(options: PbsClientOptions): PbsClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
  const tokens: TokenSource | undefined =
    options.auth && 'oauth' in options.auth
      ? new OAuthTokens(baseUrl, options.auth.oauth, transport)
      : options.auth && 'businessUser' in options.auth
        ? new BusinessUserSession({ baseUrl, ...options.auth.businessUser, fetch: transport }, options.auth.businessUser)
        : undefined;

  const authorization = async (): Promise<string | undefined> => {
    const auth = options.auth;
    if (!auth) return undefined;
    if ('apiKey' in auth) return `Bearer ${auth.apiKey}`;
    if ('accessToken' in auth) return `Bearer ${auth.accessToken}`;
    if ('adminToken' in auth) return `Bearer ${auth.adminToken}`;
    if ('basic' in auth) return `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString('base64')}`;
    return `Bearer ${await tokens!.get()}`;
  };

  /** Sends with retries: the original request is never consumed, each attempt sends a clone. */
  const send = async (original: Request): Promise<Response> => {
    // A POST without an Idempotency-Key is retried only where pbs cannot have acted on it (429, 503).
    const replayable = IDEMPOTENT_METHODS.has(original.method) || original.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const request = original.clone();
      const auth = await authorization();
      if (auth && !request.headers.has('authorization')) request.headers.set('authorization', auth);
      let response: Response;
      try {
        response = await transport(request);
      } catch (error) {
        if (attempt >= maxRetries || !replayable) throw error;
        await sleep(backoffMs(attempt));
        continue;
      }
      if (response.status === 401 && tokens && attempt === 0) {
        // The token may have been revoked or rotated away: fetch a new one, once.
        tokens.forget();
        await response.body?.cancel();
        continue;
      }
      if ((response.status === 429 || response.status === 503) && attempt < maxRetries && (await retriable(response))) {
        const waitSeconds = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
        const waitMs = waitSeconds === undefined ? backoffMs(attempt) : waitSeconds * 1000;
        if (waitMs <= maxRetryDelayMs) {
          await response.body?.cancel();
          await sleep(waitMs);
          continue;
        }
      }
      return response;
    }
  };

  const client = createClient<paths>({ baseUrl, fetch: send });
  const middleware: Middleware = {
    onRequest({ request }) {
      if (
        options.idempotencyKeys !== false &&
        (request.method === 'POST' || request.method === 'DELETE') &&
        !request.headers.has('idempotency-key')
      ) {
        request.headers.set('idempotency-key', randomUUID());
      }
      return request;
    },
    async onResponse({ request, response }) {
      if (response.ok) return response;
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      throw new PbsError(response.status, body, request.method, request.url, response.headers);
    },
  };
  client.use(middleware);
  return client;
}

/**
 * Options for an operation whose body is a form (holds, reservations: the spec takes form bodies
 * only): `pbs.POST(path, { params, ...formBody({ date, time, covers }) })`. `headers` are sent too.
 */
export function formBody<T extends Record<string, string | number>>(body: T, headers: Record<string, string> = {}) {
  return {
    body,
    bodySerializer: (value: T) => new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])),
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/**
 * The data of a call (which throws PbsError on a non-2xx), typed by the operation:
 * `const restaurants = await ok(pbs.GET('/v3/partner/restaurants'))`.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
}

/** The daily budget (ACCESS_LIMIT_REACHED) resets at midnight UTC: waiting a second does not help. */
async function retriable(response: Response): Promise<boolean> {
  if (response.status !== 429) return true;
  try {
    const body = (await response.clone().json()) as { error?: { code?: string } };
    return body.error?.code !== 'ACCESS_LIMIT_REACHED';
  } catch {
    return true;
  }
}

function backoffMs(attempt: number): number {
  return Math.min(4000, 250 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
}

/** What the client asks of a source of bearer tokens. */
interface TokenSource {
  get(): Promise<string>;
  forget(): void;
}

/** A business user's tokens, refreshed (v3: a new refresh token each time) shortly before they expire or when refused. */
class BusinessUserSession implements TokenSource {
  private tokens: BusinessUserTokens;
  private stale = false;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly app: OAuthApp,
    private readonly user: { tokens: BusinessUserTokens; onRefresh?: (tokens: BusinessUserTokens) => void | Promise<void> },
  ) {
    this.tokens = user.tokens;
  }

  get(): Promise<string> {
    if (!this.stale && this.tokens.expiresAt - TOKEN_MARGIN_MS > Date.now()) return Promise.resolve(this.tokens.accessToken);
    this.pending ??= refreshTokens(this.app, this.tokens.refreshToken)
      .then(async (fresh) => {
        this.tokens = fresh;
        this.stale = false;
        await this.user.onRefresh?.(fresh);
        return fresh.accessToken;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  forget(): void {
    this.stale = true;
  }
}

/** Client-credentials tokens from `POST /oauth2/token`, fetched once and renewed before they expire. */
class OAuthTokens implements TokenSource {
  private token: { value: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly client: { clientId: string; clientSecret: string },
    private readonly transport: (request: Request) => Promise<Response>,
  ) {}

  get(): Promise<string> {
    if (this.token && this.token.expiresAt - TOKEN_MARGIN_MS > Date.now()) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  forget(): void {
    this.token = undefined;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.client.clientId,
      client_secret: this.client.clientSecret,
    });
    const url = `${this.baseUrl}/oauth2/token`;
    const response = await this.transport(new Request(url, { method: 'POST', body: form }));
    const body = (await response.json().catch(() => undefined)) as { access_token?: string; expires_in?: number } | undefined;
    if (!response.ok || !body?.access_token) throw new PbsError(response.status, body, 'POST', url, response.headers);
    this.token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }
}
