import createClient from 'openapi-fetch';
import type { paths } from '../../packages/sdk/src/schema';
import { api, ApiError, notifyLoggedOut } from './api';

/**
 * pbs's API, typed from its OpenAPI document (the SDK's generated `paths`): every operator and
 * portal route declares its answers, so a page reads fields the server says it sends. Calls go
 * with the browser's session cookie (same origin).
 */
export const pbs = createClient<paths>({ baseUrl: '' });

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** What operation `M` of path `P` answers on success (200, else 201), as the OpenAPI document declares it. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer A }
      ? JsonOf<A>
      : never
  : never;

/** Object.entries keeping the keys' type (for records whose schema lists every key). */
export const entriesOf = <K extends string, V>(record: Record<K, V>) => Object.entries(record) as Array<[K, V]>;

/** What a typed call answered, or an ApiError with pbs's code (a 401 also signs the page out). */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  if (response.status === 401) notifyLoggedOut();
  const body = (error ?? {}) as { error?: { code?: string; description?: string } };
  throw new ApiError(response.status, body.error?.code ?? `HTTP_${response.status}`, body.error?.description ?? response.statusText);
}

/** The bulk imports: their bodies are JSON lines or CSV text, which the OpenAPI document does not type. */
export type ImportPath =
  '/admin/v1/businesses/import' | '/admin/v1/reviews/import' | '/admin/v1/engagement/activity' | '/admin/v1/reservation-settings/import';

/** Sends one import body as text; answers what the route declares (an ApiError on a refusal). */
export function importText<P extends ImportPath>(path: P, text: string, contentType: 'application/x-ndjson' | 'text/csv') {
  return api<Answer<P, 'post'>>('POST', path, text, contentType);
}

/** A partner's business links from onboarding CSV text (business id, optional comment): all or nothing. */
export function importLinks(partnerId: string, csv: string) {
  const path = `/admin/v1/partners/${encodeURIComponent(partnerId)}/businesses/import`;
  return api<Answer<'/admin/v1/partners/{partner_id}/businesses/import', 'post'>>('POST', path, csv, 'text/csv');
}
