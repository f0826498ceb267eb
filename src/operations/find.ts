/** What the operator's "find anything" found: a thing of some kind, named, and the console page that shows it. */
export interface Found {
  kind: 'partner' | 'business' | 'reservation' | 'request' | 'message' | 'lead';
  id: string;
  title: string;
  detail: string;
  /** The console's page (its hash route) that shows it. */
  page: string;
}

/**
 * Where each kind is looked up: the families' own reads, wired in services.ts (a family's tables
 * are read only through its exported functions). Each answers at most `limit`, or nothing.
 */
export interface FindSources {
  partners(text: string, limit: number): Promise<Array<{ id: string; name: string; status: string }>>;
  businesses(text: string, limit: number): Promise<Array<{ id: string; name: string; city: string }>>;
  reservation(
    id: string,
  ): Promise<{ id: string; business_id: string; date: string; time: string; covers: number; status: string } | undefined>;
  request(requestId: string): Promise<{ partner_id: string | null; operation: string; status: number; at: string } | undefined>;
  message(messageId: string): Promise<{ message_id: string; event_type: string; business_id: string; deliveries: number } | undefined>;
  lead(id: string): Promise<{ id: string; business_id: string } | undefined>;
}

/** The most of each kind a search answers. */
const PER_KIND = 5;
/** Longer text is no id or name pbs holds. */
export const MAX_FIND_LENGTH = 200;

/**
 * The operator's "find anything" (the console's search box): a partner (id or a part of its
 * name), a business (id, alias or the start of its name), a reservation, a request (its
 * X-Request-Id), a webhook message (its `webhook-id`) or a lead, each by what identifies it. The
 * kinds are asked at once; each answers from an index (no scan of everything).
 */
export async function findAnything(sources: FindSources, text: string): Promise<Found[]> {
  const q = text.trim();
  if (q === '') return [];
  const [partners, businesses, reservation, request, message, lead] = await Promise.all([
    sources.partners(q, PER_KIND),
    sources.businesses(q, PER_KIND),
    sources.reservation(q),
    sources.request(q),
    sources.message(q),
    sources.lead(q),
  ]);
  const found: Found[] = [];
  for (const p of partners) found.push({ kind: 'partner', id: p.id, title: p.name, detail: p.status, page: `partners?id=${enc(p.id)}` });
  for (const b of businesses) found.push({ kind: 'business', id: b.id, title: b.name, detail: b.city, page: `businesses?id=${enc(b.id)}` });
  if (reservation)
    found.push({
      kind: 'reservation',
      id: reservation.id,
      title: `${reservation.date} ${reservation.time}, ${reservation.covers} ${reservation.covers === 1 ? 'guest' : 'guests'}`,
      detail: reservation.status,
      page: `reservations?business=${enc(reservation.business_id)}&date=${enc(reservation.date)}`,
    });
  if (request)
    found.push({
      kind: 'request',
      id: q,
      title: `${request.status} ${request.operation}`,
      detail: request.at,
      page: `requests?request_id=${enc(q)}`,
    });
  if (message)
    found.push({
      kind: 'message',
      id: message.message_id,
      title: message.event_type,
      detail: `${message.deliveries} ${message.deliveries === 1 ? 'delivery' : 'deliveries'}`,
      page: `webhooks?message_id=${enc(message.message_id)}`,
    });
  if (lead)
    found.push({
      kind: 'lead',
      id: lead.id,
      title: 'Lead',
      detail: lead.business_id,
      page: `leads?business=${enc(lead.business_id)}&lead=${enc(lead.id)}`,
    });
  return found;
}

const enc = encodeURIComponent;
