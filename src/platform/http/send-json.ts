import type { FastifyReply } from 'fastify';

/** The content type of every JSON answer and stored JSON answer. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Sends JSON a service has already written (bytes or text, sent as they are), or will write (a
 * promise of them): the one way a route answers with pre-serialised JSON. Not async: when the
 * answer is ready at once (most openings and metrics answers) no promise is made.
 */
export function sendJson(reply: FastifyReply, answer: Buffer | string | Promise<Buffer | string>): Promise<FastifyReply> | undefined {
  if (typeof answer === 'string' || Buffer.isBuffer(answer)) {
    reply.type(JSON_UTF8).send(answer);
    return undefined;
  }
  return answer.then((body) => reply.type(JSON_UTF8).send(body));
}
