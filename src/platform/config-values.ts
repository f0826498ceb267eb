import { ConfigError } from './config-error.js';

/** The environment as pbs reads it. */
export type Env = Record<string, string | undefined>;

/** An integer setting, at least `min`; refused (ConfigError) when it is not one. */
export function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  }
  return value;
}

/** A yes/no setting: 1/0, true/false, yes/no, on/off. */
export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be a boolean (1/0/true/false), got "${raw}"`);
}
