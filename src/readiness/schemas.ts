import { pagingQuerySchema } from '../platform/paging.js';
import { DRILL_KINDS, DRILL_SECONDS, DRILL_STATES } from './drill-judge.js';
import { MAX_SUMMARIES } from './readiness-service.js';

/** The JSON schemas of readiness's routes (docs/readiness.md). */

const milestone = {
  type: 'object',
  required: ['id', 'title', 'status', 'refuted', 'rule', 'problem', 'hint', 'evidence', 'at'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'string', enum: ['green', 'red'] },
    refuted: { type: 'boolean', description: 'Red because your traffic did something wrong, not only because it has not shown it yet' },
    rule: { type: 'string', description: 'The contract rule it checks' },
    problem: { type: ['string', 'null'], description: 'While red: what is missing, or what your traffic did wrong' },
    hint: { type: ['string', 'null'], description: 'While red: how to turn it green' },
    evidence: { type: 'array', items: { type: 'string' }, description: 'X-Request-Ids of the calls that showed it, newest first' },
    at: { type: ['string', 'null'] },
    deliveries: { type: 'array', items: { type: 'string' }, description: 'Webhook milestones: the deliveries behind them' },
    drill: { type: 'string', description: 'Drill milestones: the drill behind them' },
  },
} as const;

export const readinessReportSchema = {
  type: 'object',
  required: ['partner_id', 'name', 'generated_at', 'since', 'score', 'ready', 'approval', 'interfaces'],
  properties: {
    partner_id: { type: 'string' },
    name: { type: 'string' },
    generated_at: { type: 'string' },
    since: { type: ['string', 'null'], description: 'Calls since then are judged (a fresh start); null: since the first' },
    score: { type: 'integer', description: 'Share of green milestones, percent' },
    ready: { type: 'boolean', description: 'Every milestone is green' },
    approval: {
      type: ['object', 'null'],
      required: ['approved_by', 'approved_at', 'note'],
      properties: { approved_by: { type: 'string' }, approved_at: { type: 'string' }, note: { type: 'string' } },
    },
    interfaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['interface', 'score', 'green', 'total', 'milestones'],
        properties: {
          interface: { type: 'string' },
          score: { type: 'integer' },
          green: { type: 'integer' },
          total: { type: 'integer' },
          milestones: { type: 'array', items: milestone },
        },
      },
    },
  },
} as const;

export const reportQuery = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['json', 'markdown'], default: 'json', description: '`markdown`: the report as text/markdown' },
  },
  additionalProperties: false,
} as const;

export const approvalBody = {
  type: 'object',
  properties: { note: { type: 'string', maxLength: 2000, default: '' } },
  additionalProperties: false,
} as const;

export const partnerParams = {
  type: 'object',
  required: ['partner_id'],
  properties: { partner_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const drillSchema = {
  type: 'object',
  required: [
    'id',
    'partner_id',
    'kind',
    'title',
    'description',
    'interface',
    'operation',
    'started_by',
    'started_at',
    'ends_at',
    'state',
    'milestones',
  ],
  properties: {
    id: { type: 'string' },
    partner_id: { type: 'string' },
    kind: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string', description: 'What pbs does, and what a client that follows the contract does about it' },
    interface: { type: 'string' },
    operation: { type: ['string', 'null'] },
    started_by: { type: 'string' },
    started_at: { type: 'string' },
    ends_at: { type: 'string', description: 'When its time box ends (real time)' },
    state: { type: 'string', enum: DRILL_STATES },
    milestones: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'outcome', 'problem', 'evidence'],
        properties: {
          id: { type: 'string' },
          outcome: { type: 'string', enum: ['shown', 'refuted', 'not shown'] },
          problem: { type: ['string', 'null'] },
          evidence: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

export const drillListSchema = {
  type: 'object',
  required: ['drills'],
  properties: { drills: { type: 'array', items: drillSchema } },
} as const;

export const drillBody = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { type: 'string', enum: DRILL_KINDS },
    operation: { type: 'string', maxLength: 200, description: 'The operation its failures act on (the drill’s default when absent)' },
    duration_seconds: {
      type: 'integer',
      minimum: DRILL_SECONDS.min,
      maximum: DRILL_SECONDS.max,
      default: DRILL_SECONDS.default,
      description: 'Its time box, seconds',
    },
  },
  additionalProperties: false,
} as const;

export const drillParams = {
  type: 'object',
  required: ['drill_id'],
  properties: { drill_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const summariesQuery = {
  type: 'object',
  required: ['partner_ids'],
  properties: {
    partner_ids: { type: 'string', minLength: 1, maxLength: MAX_SUMMARIES * 65, description: `Comma-separated, at most ${MAX_SUMMARIES}` },
  },
  additionalProperties: false,
} as const;

export const summariesSchema = {
  type: 'object',
  required: ['partners'],
  properties: {
    partners: {
      type: 'array',
      items: {
        type: 'object',
        required: ['partner_id', 'name', 'score', 'ready', 'approved', 'interfaces'],
        properties: {
          partner_id: { type: 'string' },
          name: { type: 'string' },
          score: { type: 'integer' },
          ready: { type: 'boolean' },
          approved: { type: 'boolean' },
          interfaces: {
            type: 'array',
            items: {
              type: 'object',
              required: ['interface', 'score'],
              properties: { interface: { type: 'string' }, score: { type: 'integer' } },
            },
          },
        },
      },
    },
  },
} as const;

/** A page of the ranking: at most MAX_SUMMARIES partners, each summarised fresh. */
export const rankingQuery = pagingQuerySchema({ defaultLimit: 50, maxLimit: MAX_SUMMARIES });

export const rankingSchema = {
  type: 'object',
  required: ['total', 'limit', 'offset', 'partners'],
  properties: {
    total: { type: 'integer', description: 'Partners scored (each partner is, by its first report or within minutes by the scoring task)' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    partners: summariesSchema.properties.partners,
  },
} as const;
