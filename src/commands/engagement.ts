import fs from 'node:fs';
import type { EngagementService } from '../engagement/engagement-service.js';
import { parsePage } from '../platform/paging.js';
import { need, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { lineProgress } from './progress.js';

/** `pbs engagement …`: engagement activity imports, weeks and scores. */
export async function engagementCommand(engagement: EngagementService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  switch (sub) {
    case 'import': {
      const loaded = await engagement.importJsonLines(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        onProgress: lineProgress('loaded', 'lines'),
      });
      // Scored here, so the command is complete without a running server (its queued task then finds them scored).
      const scored = [];
      for (const week of loaded.weeks) {
        scored.push(await engagement.scoreWeek(week));
        process.stderr.write(`scored the week of ${week}\n`);
      }
      return { ...loaded, scored };
    }
    case 'weeks':
      return engagement.weeks(parsePage(flags, { defaultLimit: 52, minLimit: 1, maxLimit: 520 }));
    case 'score':
      return a === undefined ? engagement.scoreChangedWeeks() : engagement.scoreWeekOf(a);
    case 'show':
      return engagement.business(need(a, 'business id'));
    default:
      throw new UsageError(`unknown engagement command ${sub ?? ''}`);
  }
}

export const engagementCommands: CommandGroupSpec = {
  name: 'engagement',
  summary: 'businesses’ weekly activity and engagement scores',
  commands: [
    {
      use: 'import <file.jsonl>',
      summary: 'weekly activity: {"business_id", "week", "page_views", …} per line; then scores the weeks',
    },
    { use: 'weeks', summary: 'the weeks and their scoring', options: PAGE_OPTIONS },
    { use: 'score [week]', summary: 'score a week now (by default every changed week)' },
    { use: 'show <business-id>', summary: 'a business’s scores' },
  ],
};
