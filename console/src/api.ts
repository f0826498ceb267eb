// The console talks to pbs's operator API with the operator token (kept for this tab only).
const TOKEN_KEY = 'pbs-console-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Whether calls carry the operator token; the partner portal's travel with its HttpOnly cookie instead. */
let sendToken = true;
export function signInByCookie(): void {
  sendToken = false;
}

type Listener = () => void;
const loggedOut = new Set<Listener>();
export const onLoggedOut = (listener: Listener) => (loggedOut.add(listener), () => loggedOut.delete(listener));

/** Calls pbs; a JSON body is sent as JSON, a string as-is (with `contentType`). Throws ApiError on a non-2xx. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  token = sendToken ? session.token() : null,
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
    if (response.status === 401) loggedOut.forEach((listener) => listener());
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

/** Checks a token against the operator API (any operator read will do). */
export async function checkToken(token: string): Promise<boolean> {
  try {
    await api('GET', '/admin/v1/clock', undefined, undefined, token);
    return true;
  } catch {
    return false;
  }
}
