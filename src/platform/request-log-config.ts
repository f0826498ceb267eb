import { ConfigError } from './config-error.js';
import { bool, int, type Env } from './config-values.js';

/** What partners sent and were answered (docs/request-log.md), and the readiness kept from it (docs/readiness.md). */
export interface RequestLogConfig {
  enabled: boolean;
  /** Entries older than this (pbs time) are purged. */
  retentionHours: number;
  /** At most this many entries a partner; older ones are purged. */
  maxRowsPerPartner: number;
  /** Sandbox only: keep guest names, phones, e-mails and notes instead of masking them. */
  fullBodies: boolean;
  /** How often the buffered entries are written, ms. */
  flushMs: number;
  /** `thread`: entries are made into rows and written by a worker thread of their own; `inline`: on the main thread. */
  writer: 'thread' | 'inline';
  /** Whether each batch also keeps its partners' launch readiness (PBS_READINESS). */
  readiness: boolean;
}

export function requestLogConfig(env: Env, sandbox: boolean): RequestLogConfig {
  return {
    // On in the sandbox, where partner developers read it; a production server opts in (its cost: docs/request-log.md).
    enabled: bool(env, 'PBS_REQUEST_LOG', sandbox),
    retentionHours: int(env, 'PBS_REQUEST_LOG_RETENTION_HOURS', 7 * 24, 1),
    maxRowsPerPartner: int(env, 'PBS_REQUEST_LOG_MAX_ROWS_PER_PARTNER', 10_000, 1),
    fullBodies: fullBodies(env, sandbox),
    flushMs: int(env, 'PBS_REQUEST_LOG_FLUSH_MS', 250, 10),
    writer: requestLogWriter(env.PBS_REQUEST_LOG_WRITER),
    readiness: bool(env, 'PBS_READINESS', true),
  };
}

/** Guest data in the request log unmasked: a sandbox's choice only (production refuses it). */
function fullBodies(env: Env, sandbox: boolean): boolean {
  const full = bool(env, 'PBS_REQUEST_LOG_FULL_BODIES', false);
  if (full && !sandbox) throw new ConfigError('PBS_REQUEST_LOG_FULL_BODIES is for the sandbox only: production masks guest data');
  return full;
}

function requestLogWriter(raw: string | undefined): RequestLogConfig['writer'] {
  if (raw === undefined || raw === '' || raw === 'thread') return 'thread';
  if (raw === 'inline') return 'inline';
  throw new ConfigError(`PBS_REQUEST_LOG_WRITER must be thread or inline, got "${raw}"`);
}
