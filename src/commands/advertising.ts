import fs from 'node:fs';
import type { AdvertisingServices } from '../advertising/module.js';
import { need, optionalBool, optionalChoice, optionalInt, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { lineProgress } from './progress.js';
import { JOB_STATES, PROGRAM_STATES } from '../advertising/advertising-operator.js';

/** `pbs advertising …`: the operator's side of advertising: programs, jobs, flags, category policy, promotions, recorded metrics. */
export async function advertisingCommand(
  advertising: Pick<AdvertisingServices, 'operator' | 'features'>,
  args: string[],
  flags: Record<string, string>,
): Promise<unknown> {
  const { operator, features } = advertising;
  const [sub, a, b] = args;
  const page = { limit: optionalInt(flags.limit, '--limit') ?? 50, offset: optionalInt(flags.offset, '--offset') ?? 0 };
  switch (sub) {
    case 'programs':
      return operator.programs({
        partner_id: flags.partner,
        business_id: flags.business,
        state: optionalChoice(flags.state, PROGRAM_STATES, '--state'),
        ...page,
      });
    case 'jobs':
      return operator.jobs({ partner_id: flags.partner, status: optionalChoice(flags.status, JOB_STATES, '--status'), ...page });
    case 'features':
      return features.operatorView(need(a, 'program id'));
    case 'hold':
    case 'release':
    case 'complete':
      return operator[sub](need(a, 'job id'));
    case 'hold-new-jobs':
      if (a !== 'on' && a !== 'off') throw new UsageError('hold-new-jobs takes on or off');
      return operator.setSettings({ hold_new_jobs: a === 'on' });
    case 'flags':
      return operator.setFlags(need(a, 'business id'), {
        removed_from_search: optionalBool(flags['removed-from-search'], '--removed-from-search'),
        restricted_from_advertising: optionalBool(flags.restricted, '--restricted'),
      });
    case 'category-policy':
      if (a === 'decline') return operator.declineCategory(need(b, 'category'), flags.reason);
      if (a === 'allow') return operator.allowCategory(need(b, 'category'));
      if (a === undefined) return operator.categoryPolicy();
      throw new UsageError(`unknown category-policy command ${a}`);
    case 'promotion':
      if (a === 'list') return operator.promotions();
      if (a !== 'set') throw new UsageError('promotion takes list or set');
      return operator.savePromotion(need(b, 'promotion code'), {
        program_types: flags.types?.split(',').map((t) => t.trim()),
        min_budget: optionalInt(flags['min-budget'], '--min-budget'),
        max_budget: optionalInt(flags['max-budget'], '--max-budget'),
        months: optionalInt(flags.months, '--months'),
        active: optionalBool(flags.active, '--active'),
      });
    case 'import-metrics':
      return operator.importMetrics(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        onProgress: lineProgress('imported', 'lines'),
      });
    default:
      throw new UsageError(`unknown advertising command ${sub ?? ''}`);
  }
}

export const advertisingCommands: CommandGroupSpec = {
  name: 'advertising',
  summary: 'the operator’s side of advertising: programs, jobs, flags, category policy, promotions, metrics',
  subgroups: { promotion: 'promotion codes partners’ programs may use' },
  commands: [
    {
      use: 'programs',
      summary: 'programs, 50 at a time',
      options: [
        ['--partner <partner-id>', 'only this partner’s'],
        ['--business <business-id>', 'only this business’s'],
        ['--state <state>', 'ACTIVE, ENDED or CANCELED'],
        ...PAGE_OPTIONS,
      ],
    },
    {
      use: 'jobs',
      summary: 'advertising jobs, newest first',
      options: [['--partner <partner-id>', 'only this partner’s'], ['--status <status>', 'a job status'], ...PAGE_OPTIONS],
    },
    { use: 'features <program-id>', summary: 'the program’s features as its partner set them' },
    { use: 'hold <job-id>', summary: '(sandbox) keep a job PROCESSING until released' },
    { use: 'release <job-id>', summary: '(sandbox) let a held job go on' },
    { use: 'complete <job-id>', summary: '(sandbox) apply a job now' },
    { use: 'hold-new-jobs <on|off>', summary: '(sandbox) keep every new job PROCESSING until released' },
    {
      use: 'flags <business-id>',
      summary: 'a business’s advertising flags',
      options: [
        ['--removed-from-search <true|false>', 'removed from search'],
        ['--restricted <true|false>', 'restricted from advertising'],
      ],
    },
    {
      use: 'category-policy [decline|allow] [category]',
      summary: 'the declined categories: shown, or one declined or allowed again',
      options: [['--reason <text>', 'decline: why']],
    },
    { use: 'promotion list', summary: 'promotion codes' },
    {
      use: 'promotion set <code>',
      summary: 'create or change a promotion code',
      options: [
        ['--types <list>', 'program types it applies to, e.g. CPC,BP'],
        ['--min-budget <cents>', 'the least budget it takes'],
        ['--max-budget <cents>', 'the most budget it takes'],
        ['--months <n>', 'how long it lasts'],
        ['--active <true|false>', 'whether it can be used'],
      ],
    },
    {
      use: 'import-metrics <file.jsonl>',
      summary: 'recorded spend: {"program_id", "date", "spend", "billed_clicks", "billed_impressions"} per line',
    },
  ],
};
