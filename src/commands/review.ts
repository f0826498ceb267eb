import fs from 'node:fs';
import type { ReviewService } from '../reviews/review-service.js';
import { need, optionalInt, UsageError } from './args.js';

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
        onProgress: (done, total) => process.stderr.write(`imported ${done}/${total} reviews\n`),
      });
    default:
      throw new UsageError(`unknown review command ${sub ?? ''}`);
  }
}
