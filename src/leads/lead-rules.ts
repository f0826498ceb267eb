/**
 * The pure rules of leads (docs/contract/leads.md): a realistic request-a-quote project for a
 * business, the consumer's first message summarising it, and the JSON of a lead and its events
 * as the original's clients read them. No database, no clock.
 */

export interface SurveyAnswer {
  question_text: string;
  question_identifier: string | null;
  answer_text: string[];
}

/** The `project` of Get Lead: what the consumer asked for. */
export interface LeadProject {
  job_names: string[];
  survey_answers: SurveyAnswer[];
  location?: { postal_code: string };
  availability?: { status: string; dates: string[] };
  additional_info?: string;
  attachments?: Array<{ id: string; url: string; resource_name: string; mime_type: string }>;
}

/** `event_content` of an event: a text, or what an attachment event says in its place. */
export interface EventContent {
  text?: string;
  fallback_text: string;
  attachments?: Array<{ id: string; url: string; mime_type: string; resource_name: string | null }>;
}

interface Template {
  /** Category aliases (or their prefixes) this kind of request goes to. */
  categories: string[];
  jobs: string[];
  questions: Array<{ text: string; id: string | null; answers: string[] }>;
  details: string[];
}

/** Request-a-quote forms by kind of business; the last is for any other business. */
const TEMPLATES: Template[] = [
  {
    categories: ['plumbing', 'waterheater'],
    jobs: ['Water heater repair', 'Leak detection and repair', 'Drain cleaning', 'Toilet installation'],
    questions: [
      { text: 'What kind of property is it?', id: 'property_type', answers: ['House', 'Apartment', 'Commercial building'] },
      { text: 'When do you need the work done?', id: null, answers: ['As soon as possible', 'Within a week', 'I am flexible'] },
    ],
    details: ['No hot water since yesterday evening.', 'The kitchen sink drains very slowly.', 'There is a damp patch under the bathroom.'],
  },
  {
    categories: ['movers', 'moving'],
    jobs: ['Local moving', 'In-state moving', 'Packing services'],
    questions: [
      { text: 'How many bedrooms are you moving?', id: 'bedrooms', answers: ['Studio', '1 bedroom', '2 bedrooms', '3+ bedrooms'] },
      { text: 'Do you need packing help?', id: 'packing', answers: ['Yes', 'No'] },
    ],
    details: ['Third floor, no elevator at the old place.', 'A piano needs to come along.', 'Moving across town at the end of the month.'],
  },
  {
    categories: ['homecleaning', 'cleaning', 'officecleaning'],
    jobs: ['Deep cleaning', 'Move-out cleaning', 'Recurring house cleaning'],
    questions: [
      { text: 'How many bedrooms?', id: 'bedrooms', answers: ['1', '2', '3', '4+'] },
      { text: 'How often?', id: 'frequency', answers: ['Once', 'Every week', 'Every two weeks'] },
    ],
    details: ['We have two cats.', 'Keys can be left with the building manager.', 'Please bring your own supplies.'],
  },
  {
    categories: ['electricians', 'electric'],
    jobs: ['Lighting installation', 'Outlet repair', 'Panel upgrade'],
    questions: [
      { text: 'What needs to be done?', id: 'work_type', answers: ['Install', 'Repair', 'Inspect'] },
      { text: 'When do you need the work done?', id: null, answers: ['As soon as possible', 'Within a week', 'I am flexible'] },
    ],
    details: ['Half the kitchen outlets stopped working.', 'Six recessed lights in the living room.', 'The breaker trips twice a day.'],
  },
  {
    categories: ['restaurants', 'food', 'catering', 'bars', 'cafes'],
    jobs: ['Catering', 'Private event', 'Large group booking'],
    questions: [
      { text: 'How many guests?', id: 'guest_count', answers: ['10-20', '20-50', '50-100'] },
      { text: 'What kind of event is it?', id: 'event_type', answers: ['Birthday', 'Corporate', 'Wedding rehearsal'] },
    ],
    details: ['Some guests are vegetarian.', 'We would like a private room if possible.', 'Budget around $40 a head.'],
  },
  {
    categories: [],
    jobs: ['General quote', 'Consultation'],
    questions: [{ text: 'When do you need the work done?', id: null, answers: ['As soon as possible', 'Within a week', 'I am flexible'] }],
    details: ['Please send a rough estimate.', 'Happy to talk on the phone.', 'Looking to start next month.'],
  },
];

const FIRST_NAMES = ['Jordan', 'Avery', 'Sam', 'Riley', 'Casey', 'Morgan', 'Taylor', 'Jamie', 'Alex', 'Drew', 'Robin', 'Quinn'];
const INITIALS = 'ABCDEFGHJKLMNPRSTW';

const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length) % list.length];

/** The template for a business's categories (aliases), the general one when none fits. */
function templateFor(categoryAliases: string[]): Template {
  return (
    TEMPLATES.find((t) => t.categories.some((c) => categoryAliases.some((alias) => alias === c || alias.startsWith(c)))) ??
    TEMPLATES[TEMPLATES.length - 1]
  );
}

/**
 * A realistic request for a quote to a business: a job of its kind, the form's answers, the
 * business's postal code, two days the consumer is available (from `firstDate`, YYYY-MM-DD) and
 * a line of details.
 */
export function draftProject(business: { categories: string[]; postalCode: string }, firstDate: string, random: () => number): LeadProject {
  const template = templateFor(business.categories);
  const dayAfter = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  return {
    job_names: [pick(template.jobs, random)],
    survey_answers: template.questions.map((q) => ({
      question_text: q.text,
      question_identifier: q.id,
      answer_text: [pick(q.answers, random)],
    })),
    ...(business.postalCode ? { location: { postal_code: business.postalCode } } : {}),
    availability: { status: 'SPECIFIC_DATES', dates: [dayAfter(firstDate, 2), dayAfter(firstDate, 3)] },
    additional_info: pick(template.details, random),
  };
}

/** A consumer's display name as the original shows it: first name and last initial ("Jordan P."). */
export function consumerName(random: () => number): string {
  return `${pick(FIRST_NAMES, random)} ${pick([...INITIALS], random)}.`;
}

/** The consumer's first message: the platform's summary of the request, as the original writes it. */
export function requestSummary(project: LeadProject): string {
  const lines = [`Hi there, I'm looking for help with: ${project.job_names.join(', ')}.`];
  for (const answer of project.survey_answers) lines.push(`${answer.question_text} ${answer.answer_text.join(', ')}`);
  if (project.availability) lines.push(`Availability: ${project.availability.dates.join(', ')}`);
  if (project.location) lines.push(`Location: ${project.location.postal_code}`);
  if (project.additional_info) lines.push(`Additional details: ${project.additional_info}`);
  return lines.join('\n');
}

/** What a consumer says next in a conversation the operator drives without giving a text. */
export function consumerFollowUp(random: () => number): string {
  return pick(
    [
      'Are you available on one of those days?',
      'Could you give me a rough price?',
      'Thanks! What would the next step be?',
      'Just checking in, is this something you can help with?',
    ],
    random,
  );
}

/** A text event's content: the text, and the same as the fallback for clients that show no rich content. */
export function textContent(text: string): EventContent {
  return { text, fallback_text: text };
}

/**
 * An event's paging token: opaque to clients, never the event's id (the original says so), and
 * naming its lead so that a cursor of another lead is refused rather than misread.
 */
export function eventCursor(leadId: string, seq: number): string {
  return Buffer.from(`${leadId}:${seq}`).toString('base64url');
}

/** The sequence number a cursor stands for in this lead, or undefined when it is not one of its cursors. */
export function cursorSeq(leadId: string, cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString();
  const at = decoded.lastIndexOf(':');
  if (at < 0 || decoded.slice(0, at) !== leadId) return undefined;
  const seq = Number(decoded.slice(at + 1));
  return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
}

/** An event as the repeated-reply rule reads it. */
export interface RecentEvent {
  userType: string;
  text: string | undefined;
  at: number;
}

/**
 * Whether a business reply of `text` repeats its previous one (docs/contract/leads.md §12.5):
 * the business's newest message since the consumer's last has the same text and is younger than
 * `windowMs`. `recent` is oldest first.
 */
export function sameSuccessiveMessage(recent: readonly RecentEvent[], text: string, now: number, windowMs: number): boolean {
  for (let i = recent.length - 1; i >= 0; i--) {
    const event = recent[i];
    if (event.userType === 'CONSUMER') return false;
    if (event.userType === 'BIZ' && event.text !== undefined) return event.text === text && now - event.at < windowMs;
  }
  return false;
}
