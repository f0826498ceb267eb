import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (again when it changes, or on reload); `undefined` skips. */
export function useGet<T = unknown>(path: string | undefined, refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
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
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setError(e as Error);
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
  return { data, error, loading, reload };
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
