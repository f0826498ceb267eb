// The console and the portal call pbs with their HttpOnly session cookies (the browser sends
// them; no token is kept in the page). Only signing the console in sends the operator token.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const loggedOut = new Set<Listener>();
export const onLoggedOut = (listener: Listener) => (loggedOut.add(listener), () => loggedOut.delete(listener));
/** Tells the page its session has ended (a 401). */
export const notifyLoggedOut = () => loggedOut.forEach((listener) => listener());

/** Calls pbs; a JSON body is sent as JSON, a string as-is (with `contentType`). Throws ApiError on a non-2xx. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  token?: string,
): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = contentType;
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload });
  const text = await response.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; description?: string } } | undefined)?.error;
    if (response.status === 401) notifyLoggedOut();
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.description ?? (text.slice(0, 200) || response.statusText),
    );
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Signs this browser in with the operator token: pbs answers with the session cookie. */
export async function signIn(token: string): Promise<boolean> {
  try {
    await api('POST', '/admin/v1/session', undefined, undefined, token);
    return true;
  } catch {
    return false;
  }
}

/** Sandbox: a portal session from the partner's own API key (sent once; pbs answers with the cookie). Throws ApiError. */
export async function portalSignIn(apiKey: string): Promise<void> {
  await api('POST', '/portal/sign-in', undefined, undefined, apiKey);
}

/** Who this browser's live console session is (undefined: none). */
export async function sessionOperator<T>(): Promise<T | undefined> {
  try {
    return (await api<{ operator: T }>('GET', '/admin/v1/session')).operator;
  } catch {
    return undefined;
  }
}
