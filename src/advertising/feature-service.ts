import type { Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { toIsoOffset } from '../platform/clock.js';
import { ownedProgram, programEvent, programStatus } from './advertising-rules.js';
import { AdvertisingStore, type AdProgram } from './advertising-store.js';
import {
  defaultFeature,
  FEATURES_BY_PROGRAM,
  featureTypesFor,
  readFeature,
  type FeatureType,
  type FeatureValue,
} from './program-features.js';
import { fromJson, isRecord, toJson, type Json } from '../platform/values.js';

/** At most this many feature types in one request: there are 14. */
const MAX_TYPES_PER_REQUEST = 20;

/**
 * The Program Feature API (docs/contract/advertising.md §8.8; docs/advertising.md "Program features"): read every
 * feature a program may have, set some, delete some. Synchronous, unlike the program jobs: a
 * change is written with its ADVERTISING_PROGRAM_UPDATED_EVENT (change FEATURES_CHANGED) in one
 * transaction, and answers the program's features as they now are.
 */
export class ProgramFeatureService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: { onEventsCommitted?: () => void } = {},
  ) {}

  private store(db: DbOrTx = this.database.db) {
    return new AdvertisingStore(db, this.database.dialect);
  }

  /** `GET`: every feature the program's type may have, as set or as its default. */
  async read(partnerId: string, programId: string) {
    const program = await this.ownProgram(partnerId, programId);
    return { features: this.view(program, await this.store().features(program.id)).features };
  }

  /** `POST {"features": {TYPE: {...}}}`: sets the features named; a field left out keeps its value. */
  async set(partnerId: string, programId: string, body: unknown, write?: PartnerWrite) {
    const program = await this.ownProgram(partnerId, programId);
    const sent = featuresOf(body);
    if (!isRecord(sent) || Object.keys(sent).length === 0) {
      throw apiError(
        'INVALID_REQUEST',
        'features must be an object of feature types to their fields, e.g. {"features": {"AD_GOAL": {"ad_goal": "CALLS"}}}',
        { field: 'features' },
      );
    }
    const entries = Object.entries(sent);
    if (entries.length > MAX_TYPES_PER_REQUEST)
      throw apiError('INVALID_REQUEST', `At most ${MAX_TYPES_PER_REQUEST} feature types per request.`, { field: 'features' });
    const types = featureTypesFor(
      program.program_type,
      entries.map(([type]) => type),
      'features',
    );
    this.refuseEnded(program);
    return this.change(program, types, write, async (store, current, now) => {
      for (const [i, type] of types.entries()) {
        const value = readFeature(type, entries[i][1], current.get(type) ?? defaultFeature(type, program.business_id), program.business_id);
        await store.saveFeature(program.id, type, toJson(value), now);
      }
    });
  }

  /** `DELETE {"features": [TYPE, …]}` (or `?features=A,B`): back to their defaults. */
  async remove(partnerId: string, programId: string, body: unknown, query: Record<string, unknown>, write?: PartnerWrite) {
    const program = await this.ownProgram(partnerId, programId);
    const named = featureListOf(body, query);
    if (named.length === 0 || named.length > MAX_TYPES_PER_REQUEST) {
      throw apiError('INVALID_REQUEST', `features must list 1 to ${MAX_TYPES_PER_REQUEST} feature types, e.g. {"features": ["AD_GOAL"]}`, {
        field: 'features',
      });
    }
    const types = featureTypesFor(program.program_type, named, 'features');
    this.refuseEnded(program);
    return this.change(program, types, write, async (store) => {
      await store.deleteFeatures(program.id, types);
    });
  }

  /** The operator's view of a program's features: what is set, with when. */
  async operatorView(programId: string) {
    const program = await this.store().findProgram(programId);
    if (!program) throw apiError('NOT_FOUND', `No program ${programId}`);
    const rows = await this.store().features(program.id);
    return {
      program_id: program.id,
      partner_id: program.partner_id,
      program_type: program.program_type,
      available_features: FEATURES_BY_PROGRAM[program.program_type],
      set: rows.map((r) => ({
        feature_type: r.feature_type,
        value: fromJson(r.value),
        updated_at: toIsoOffset(Number(r.updated_at)),
      })),
    };
  }

  private async change(
    program: AdProgram,
    types: FeatureType[],
    write: PartnerWrite | undefined,
    apply: (store: AdvertisingStore, current: Map<string, FeatureValue>, now: number) => Promise<void>,
  ) {
    const now = this.clock.now();
    const answer = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      // Locked: two changes of one program's features take turns, each reading what the other wrote.
      await store.lockProgram(program.id);
      await apply(store, parsed(await store.features(program.id)), now);
      const view = this.view(program, await store.features(program.id));
      const event = programEvent(program, 'FEATURES_CHANGED', now);
      await recordEvent(trx, this.database.dialect, {
        ...event,
        payload: { ...event.payload, feature_types: types, active_features: view.active },
        requestId: write?.requestId,
      });
      await answerWithinChange(trx, write, 200, { features: view.features });
      return view;
    });
    this.options.onEventsCommitted?.();
    return { features: answer.features };
  }

  private view(program: AdProgram, rows: Array<{ feature_type: string; value: Json<FeatureValue> }>) {
    const set = parsed(rows);
    const features: Record<string, FeatureValue> = {};
    for (const type of FEATURES_BY_PROGRAM[program.program_type])
      features[type] = set.get(type) ?? defaultFeature(type, program.business_id);
    return { features, active: [...set.keys()].sort() };
  }

  private refuseEnded(program: AdProgram) {
    if (programStatus(program, this.clock.now()) === 'INACTIVE')
      throw apiError('CONFLICT', 'The program has ended: its features can no longer change.');
  }

  private async ownProgram(partnerId: string, programId: string): Promise<AdProgram> {
    return ownedProgram(await this.store().findProgram(programId), partnerId);
  }
}

function parsed(rows: Array<{ feature_type: string; value: Json<FeatureValue> }>): Map<string, FeatureValue> {
  return new Map(rows.map((r) => [r.feature_type, fromJson(r.value)]));
}

function featuresOf(body: unknown): unknown {
  return isRecord(body) ? body.features : undefined;
}

/** The types a DELETE names: a JSON body `{"features": [...]}`, or the query (`features=A,B` or repeated). */
function featureListOf(body: unknown, query: Record<string, unknown>): string[] {
  const fromBody = featuresOf(body);
  const raw = fromBody !== undefined ? fromBody : query.features;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : raw === undefined ? [] : [raw];
  if (!list.every((item): item is string => typeof item === 'string'))
    throw apiError('INVALID_REQUEST', 'features must be a list of feature type names', { field: 'features' });
  return [
    ...new Set(
      list
        .flatMap((item) => item.split(','))
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}
