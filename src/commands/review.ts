import fs from 'node:fs';
import type { ReviewService } from '../reviews/review-service.js';
import { need, optionalInt, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { lineProgress } from './progress.js';

/** `pbs review …`: private reviews: add, edit, list, respond, import. */
export async function reviewCommand(reviews: ReviewService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  const user =
    flags.user === undefined
      ? undefined
      : {
          name: flags.user,
          ...(flags['user-id'] ? { id: flags['user-id'] } : {}),
          ...(flags['user-image'] ? { image_url: flags['user-image'] } : {}),
        };
  const rating = optionalInt(flags.rating, '--rating');
  const text = flags.text === undefined ? {} : { text: flags.text, ...(flags.locale ? { locale: flags.locale } : {}) };
  switch (sub) {
    case 'add':
      return reviews.add(need(a, 'business id'), {
        ...(flags.id ? { id: flags.id } : {}),
        rating: rating ?? need(undefined, '--rating'),
        ...text,
        user: user ?? need(undefined, '--user'),
        ...(flags.time ? { time_created: flags.time } : {}),
      });
    case 'edit':
      return reviews.edit(need(a, 'review id'), {
        ...(rating !== undefined ? { rating } : {}),
        ...text,
        ...(user ? { user } : {}),
        ...(flags.time ? { time_created: flags.time } : {}),
      });
    case 'remove':
      await reviews.remove(need(a, 'review id'));
      return { removed: a };
    case 'show':
      return reviews.get(need(a, 'review id'));
    case 'list':
      return reviews.list(need(a, 'business id'), { limit: flags.limit, offset: flags.offset });
    case 'respond':
      return reviews.respond(need(a, 'review id'), {
        text: need(flags.text, '--text'),
        business_user: {
          name: need(flags.name, '--name'),
          role: need(flags.role, '--role'),
          ...(flags.photo ? { photo_url: flags.photo } : {}),
        },
        ...(flags.time ? { time_created: flags.time } : {}),
      });
    case 'unrespond':
      return reviews.removeResponse(need(a, 'review id'));
    case 'import':
      return reviews.importJsonLines(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        notify: flags['no-notify'] !== 'true',
        onProgress: lineProgress('imported', 'reviews'),
      });
    default:
      throw new UsageError(`unknown review command ${sub ?? ''}`);
  }
}

const REVIEW_FIELDS = [
  ['--rating <1-5>', 'the rating'],
  ['--text <text>', 'the review'],
  ['--locale <locale>', 'the text’s language, e.g. fr_FR (default en_US)'],
  ['--user <name>', 'the reviewer’s name'],
  ['--user-id <id>', 'the reviewer’s id'],
  ['--user-image <url>', 'the reviewer’s photo'],
  ['--time <iso>', 'when it was written (default: now)'],
] as const;

export const reviewCommands: CommandGroupSpec = {
  name: 'review',
  summary: 'private reviews of businesses and their public responses',
  commands: [
    {
      use: 'add <business-id>',
      summary: 'a review (--rating, --text and --user required)',
      options: [...REVIEW_FIELDS, ['--id <id>', 'its id']],
    },
    { use: 'edit <review-id>', summary: 'change a review', options: REVIEW_FIELDS },
    { use: 'remove <review-id>', summary: 'remove a review' },
    { use: 'show <review-id>', summary: 'one review' },
    { use: 'list <business-id>', summary: 'the business’s reviews', options: PAGE_OPTIONS },
    {
      use: 'respond <review-id>',
      summary: 'the business’s public response',
      options: [
        ['--text <text>', 'the response (required)'],
        ['--name <name>', 'who responds (required)'],
        ['--role <role>', 'OWNER, MANAGER, CUSTOMER_SERVICE or EMPLOYEE (required)'],
        ['--photo <url>', 'their photo'],
        ['--time <iso>', 'when (default: now)'],
      ],
    },
    { use: 'unrespond <review-id>', summary: 'remove the response' },
    {
      use: 'import <file.jsonl>',
      summary: 'many reviews: one with its "business_id" per line, with progress',
      options: [['--no-notify', 'send no webhooks for them']],
    },
  ],
};
