import { createHmac, timingSafeEqual } from 'node:crypto';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { escapeHtml, htmlPage, PAGE_BODY_LIMIT } from '../platform/http/html-page.js';
import { isRecord } from '../platform/values.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../platform/errors.js';
import { parseDate } from '../platform/local-time.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import type { ReservationService } from './reservation-service.js';

/**
 * What a page may be told after a cancel: fixed texts chosen by a code in the query string.
 * Nothing from the query string itself is ever rendered.
 */
const NOTICES: Record<string, string> = {
  already_canceled: 'This reservation was already canceled.',
  too_late: 'This reservation can no longer be canceled online; please contact the restaurant.',
  expired_form: 'This page was open too long or came from elsewhere; please try again.',
};

function noticeFor(error: ApiError): string {
  if (error.code === 'RESERVATION_ALREADY_CANCELED') return 'already_canceled';
  if (error.code === 'RESERVATION_CANCEL_CONFLICT') return 'too_late';
  return 'expired_form';
}

/** A guest's page: its one button cancels. */
const page = (reply: FastifyReply, status: number, title: string, body: string) => htmlPage(reply, status, title, body, { accent: '#b00' });

const hhmm = (raw: string) => (/^\d{4}$/.test(raw) ? `${raw.slice(0, 2)}:${raw.slice(2)}` : undefined);

/**
 * The pages behind confirmation_url and reserve_url: the end user sees the reservation and can
 * cancel it, or is told that the time needs a credit card.
 */
export function reservationPages(service: ReservationService, keys: SecretKeys) {
  /**
   * The cancel form's token: a key only pbs holds, bound to the reservation. The confirmation URL
   * lets the guest see and cancel; the token makes the cancel come from that page, not from a
   * form on another site that merely knows (or guesses) the URL.
   */
  const formToken = async (reservationId: string) =>
    createHmac('sha256', await keys.key('confirmation-page-forms'))
      .update(reservationId)
      .digest('base64url');
  const tokenMatches = async (reservationId: string, given: unknown) => {
    const expected = Buffer.from(await formToken(reservationId));
    const got = Buffer.from(typeof given === 'string' ? given : '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const text = { type: 'string', maxLength: 200 } as const;
    const reservationPage = {
      schema: {
        hide: true,
        params: { type: 'object', required: ['alias', 'reservation_id'], properties: { alias: text, reservation_id: text } },
        querystring: { type: 'object', properties: { notice: text } },
      },
    } as const;
    const slotPage = {
      schema: {
        hide: true,
        params: {
          type: 'object',
          required: ['alias', 'date', 'time', 'covers'],
          properties: { alias: text, date: text, time: text, covers: text },
        },
      },
    } as const;

    app.get('/reservations/:alias/confirmed/:reservation_id', reservationPage, async (request, reply) => {
      const { reservation_id } = request.params;
      const found = await service.findForPage(reservation_id);
      if (!found) return page(reply, 404, 'Reservation not found', '<h1>Reservation not found</h1>');
      const { reservation: r, business, settings } = found;
      const canceled = r.status === 'canceled';
      const notice = request.query.notice;
      const message = typeof notice === 'string' && Object.hasOwn(NOTICES, notice) ? NOTICES[notice] : undefined;
      return page(
        reply,
        200,
        `Reservation at ${business.name}`,
        `<h1>${canceled ? 'Canceled: ' : ''}${escapeHtml(business.name)}</h1>` +
          (message ? `<p class="note" role="alert">${escapeHtml(message)}</p>` : '') +
          `<dl><dt>Date</dt><dd>${escapeHtml(r.date)}</dd><dt>Time</dt><dd>${escapeHtml(r.time)}</dd>` +
          `<dt>Party</dt><dd>${r.covers}</dd><dt>Name</dt><dd>${escapeHtml(`${r.first_name} ${r.last_name}`)}</dd>` +
          `<dt>Status</dt><dd id="status">${canceled ? `canceled by the ${escapeHtml(r.canceled_by ?? 'guest')}` : 'confirmed'}</dd></dl>` +
          (settings.cancellation.policy ? `<p>${escapeHtml(settings.cancellation.policy)}</p>` : '') +
          (canceled
            ? ''
            : `<form method="post" action="/reservations/${encodeURIComponent(business.alias)}/confirmed/${r.id}/cancel">` +
              `<input type="hidden" name="token" value="${await formToken(r.id)}">` +
              `<button type="submit">Cancel this reservation</button></form>`),
      );
    });

    app.post(
      '/reservations/:alias/confirmed/:reservation_id/cancel',
      { schema: { ...reservationPage.schema, consumes: ['application/x-www-form-urlencoded'] }, bodyLimit: PAGE_BODY_LIMIT },
      async (request, reply) => {
        const { alias, reservation_id } = request.params;
        const back = `/reservations/${encodeURIComponent(alias)}/confirmed/${encodeURIComponent(reservation_id)}`;
        const token = isRecord(request.body) ? request.body.token : undefined;
        if (!(await tokenMatches(reservation_id, token))) return reply.redirect(`${back}?notice=expired_form`, 303);
        try {
          await service.cancelFromConfirmationPage(reservation_id);
          return reply.redirect(back, 303);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === 'NOT_FOUND') return page(reply, 404, 'Reservation not found', '<h1>Reservation not found</h1>');
          return reply.redirect(`${back}?notice=${noticeFor(error)}`, 303);
        }
      },
    );

    for (const kind of ['reserve', 'checkout'] as const) {
      app.get(`/reservations/:alias/${kind}/:date/:time/:covers`, slotPage, async (request, reply) => {
        const p = request.params;
        const restaurant = await service.restaurantForPage(p.alias);
        const time = hhmm(p.time);
        if (!restaurant || !parseDate(p.date) || !time || !/^\d{1,2}$/.test(p.covers)) {
          return page(reply, 404, 'Not found', '<h1>This reservation link is not valid</h1>');
        }
        const intro =
          kind === 'reserve'
            ? '<p class="note">This time requires a credit card to hold the table. Booking it through this page is not supported by this sandbox.</p>'
            : '<p class="note">Your table is held for a few minutes while the booking is completed.</p>';
        return page(
          reply,
          200,
          `Book ${restaurant.business.name}`,
          `<h1>${escapeHtml(restaurant.business.name)}</h1>${intro}` +
            `<dl><dt>Date</dt><dd>${escapeHtml(p.date)}</dd><dt>Time</dt><dd>${escapeHtml(time)}</dd><dt>Party</dt><dd>${escapeHtml(p.covers)}</dd></dl>` +
            (restaurant.settings.cancellation.policy ? `<p>${escapeHtml(restaurant.settings.cancellation.policy)}</p>` : ''),
        );
      });
    }
  };
}
