import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * GETs `path` (again when it changes, or on reload); `undefined` skips. What it answers is
 * always `path`'s: an answer (or error) for an earlier path is not shown while the new one
 * loads, so a page never shows one business's data under another's URL.
 */
export function useGet<T = unknown>(path: string | undefined, refreshMs?: number): Loaded<T> {
  const [answer, setAnswer] = useState<{ path: string; data: T } | undefined>(undefined);
  const [failure, setFailure] = useState<{ path: string; error: ApiError | Error } | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (!path) return;
    let cancelled = false;
    setLoading(true);
    api<T>('GET', path).then(
      (value) => {
        if (cancelled) return;
        setAnswer({ path, data: value });
        setFailure(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setFailure({ path, error: e as Error });
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [path, tick]);
  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);
  return {
    data: answer && answer.path === path ? answer.data : undefined,
    error: failure && failure.path === path ? failure.error : undefined,
    loading,
    reload,
  };
}

/**
 * Loads what `load` answers (a typed call: `() => must(pbs.GET(…))`), again when `key` changes or
 * on reload; an undefined key skips. As useGet, it never shows an earlier key's answer.
 */
export function useQuery<T>(key: string | undefined, load: () => Promise<T>, refreshMs?: number): Loaded<T> {
  const [answer, setAnswer] = useState<{ key: string; data: T } | undefined>(undefined);
  const [failure, setFailure] = useState<{ key: string; error: ApiError | Error } | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (key === undefined) return;
    let cancelled = false;
    setLoading(true);
    load().then(
      (data) => {
        if (cancelled) return;
        setAnswer({ key, data });
        setFailure(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setFailure({ key, error: e as Error });
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
    // `load` is a new closure every render; `key` says when what it asks for changed.
  }, [key, tick]);
  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);
  return {
    data: answer && answer.key === key ? answer.data : undefined,
    error: failure && failure.key === key ? failure.error : undefined,
    loading,
    reload,
  };
}

/** The hash route: `#/reservations?business=…&date=…` → { page: 'reservations', params }. */
export function useRoute(): { page: string; params: URLSearchParams } {
  const read = () => {
    const [path, query] = window.location.hash.replace(/^#\/?/, '').split('?');
    return { page: path || 'overview', params: new URLSearchParams(query ?? '') };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function go(page: string, params: Record<string, string | undefined> = {}): void {
  const query = new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  ).toString();
  window.location.hash = `#/${page}${query ? `?${query}` : ''}`;
}
