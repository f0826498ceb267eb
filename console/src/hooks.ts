import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what `load` answers (a typed call: `() => must(pbs.GET(…))`), again when `key` changes or
 * on reload; an undefined key skips. What it answers is always `key`'s: an answer (or error)
 * for an earlier key is not shown while the new one loads, so a page never shows one business's
 * data under another's URL.
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
