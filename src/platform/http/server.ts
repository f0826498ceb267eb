import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, apiError, codeForStatus, errorCatalogue } from '../errors.js';
import { databaseAwayError, isOutage } from '../db/availability.js';
import { containsNonFinite, containsNul } from '../input-guards.js';
import { jsonShapeProblem } from '../json-shape.js';
import { loggableUrl } from '../secret-fields.js';
import { fieldOf } from '../validation.js';
import type { Metrics } from '../metrics.js';
import { JSON_UTF8 } from './send-json.js';

/**
 * Longest path parameter: a comma list of up to 200 ids (advertising listings, docs/contract/advertising.md §8.7)
 * with room for aliases. A longer one matches no route (404); the request line itself is capped
 * by Node's header limit, and each route's schema caps its own parameters.
 */
const MAX_PARAM_LENGTH = 16_000;

export interface HttpServerOptions {
  logLevel: string;
  logRequests: boolean;
  bodyLimitBytes: number;
  /** The whole request, body included, must arrive within this; its headers within `headersTimeoutMs`. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Proxies believed about the client's address (Fastify's trustProxy); see Config. */
  trustProxy?: false | number | string[];
  metrics: Metrics;
  /** Where log lines go (default stdout); tests read them here. */
  logStream?: { write(line: string): void };
  /** Told of every error that says the database is away (the database's availability probes then). */
  onOutage?: (error: unknown) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const FORM_TYPE = 'application/x-www-form-urlencoded';
const ROUTABLE_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Node's own parser rejects broken requests before Fastify routes them; answer in our shape. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT';
  const [status, reason, code, description] = timedOut
    ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'The request did not arrive in time.']
    : err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'INVALID_REQUEST', 'Malformed HTTP request']
      : [400, 'Bad Request', 'INVALID_REQUEST', 'Malformed HTTP request'];
  const body = JSON.stringify({ error: { code, description } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `content-type: ${JSON_UTF8}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * A request's logger, made into a pino child only when something is logged through it: most
 * requests log nothing, and a child per request is a measurable share of a fast one.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, made on first use. */
  get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level() {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level) {
    this.logger.level = level;
  }

  // The level methods are on the prototype (below), not per-instance closures.
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  Object.defineProperty(LazyRequestLogger.prototype, level, {
    value(this: LazyRequestLogger, ...args: unknown[]) {
      // Cast: pino's level methods are overloaded; the arguments pass through unchanged.
      (this.logger[level] as (...a: unknown[]) => void)(...args);
    },
  });
}
Object.defineProperty(LazyRequestLogger.prototype, 'silent', { value: () => undefined });

/** Most parameters a form body may hold: the largest form of the interfaces has a dozen. */
export const MAX_FORM_PARAMETERS = 256;

/**
 * Repeated keys become arrays, as in query strings, so `ids=a&ids=b` reads the same either way.
 * The parameters are counted before anything is parsed: 100,000 of them in one body once held
 * the event loop long enough to slow every other request.
 */
export function parseFormBody(body: string): Record<string, string | string[]> {
  let parameters = 1;
  for (let i = body.indexOf('&'); i >= 0; i = body.indexOf('&', i + 1)) {
    if (++parameters > MAX_FORM_PARAMETERS)
      throw apiError('PAYLOAD_TOO_LARGE', `A form may hold at most ${MAX_FORM_PARAMETERS} parameters.`);
  }
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(body)) {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[key] = [existing, value];
  }
  return { ...out };
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(JSON_UTF8).send(error.toBody());
}

const nul = (where: string) => apiError('VALIDATION_ERROR', `The ${where} contains a NUL character.`, { field: null });
const nonFinite = (where: string) => apiError('VALIDATION_ERROR', `The ${where} holds a number that is not finite.`, { field: null });

/** Why a request's parsed input cannot be used, checked in order: path, query, body. Runs on every request, so no arrays. */
function inputProblem(params: unknown, query: unknown, body: unknown): ApiError | undefined {
  if (containsNul(params)) return nul('path');
  if (containsNul(query)) return nul('query');
  if (containsNonFinite(query)) return nonFinite('query');
  if (containsNul(body)) return nul('body');
  if (containsNonFinite(body)) return nonFinite('body');
  return undefined;
}

/** A method our own router of known routes takes. */
function isRoutable(method: string): method is HTTPMethod {
  return ROUTABLE_METHODS.some((m) => m === method);
}

/** The media types a route's schema says it consumes (none declared: JSON only). */
function consumes(schema: unknown): readonly unknown[] {
  return typeof schema === 'object' && schema !== null && 'consumes' in schema && Array.isArray(schema.consumes) ? schema.consumes : [];
}

/** Turns anything thrown while answering into the catalogue's error shape; only real faults are 5xx. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const e: Partial<FastifyError> & Error = error;
  if (e.validation && e.validation.length > 0) {
    const first = e.validation[0];
    const context = e.validationContext ?? 'request';
    const field = fieldOf(first);
    // ajv's "must NOT have additional properties" names no property: say which.
    if (first.keyword === 'additionalProperties' && field !== null)
      return apiError('VALIDATION_ERROR', `${context} has an unknown field "${field}"`, { field });
    const where = field ? `${context}.${field}` : context;
    return apiError('VALIDATION_ERROR', `${where} ${first.message ?? 'is invalid'}`.trim(), { field });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return e.statusCode === 415
        ? apiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type: ${e.message.replace(/^Unsupported Media Type:\s*/, '')}`)
        : apiError('INVALID_REQUEST', e.message);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError('MALFORMED_JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_TYPE') return apiError('MALFORMED_JSON');
  if (isOutage(error)) return databaseAwayError();
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = codeForStatus(status);
    return apiError(code, e.message || errorCatalogue[code].description, { status });
  }
  return apiError('INTERNAL_ERROR');
}

/**
 * The Fastify instance every family plugs into: request ids, the JSON/form/text body parsers,
 * the error shape for every failure (including 404, 405, 413, 415 and malformed bodies), and
 * request metrics.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    logger: { level: options.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // Requests are logged once, compactly, in onResponse below (when enabled).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes,
    // Fastify takes a number of hops too (proxy-addr), though its types leave it out.
    trustProxy: (options.trustProxy ?? false) as boolean | string[],
    // Slow clients are cut off: a partial body once stayed open for minutes. Node checks open
    // requests against these every connectionsCheckingInterval.
    requestTimeout: options.requestTimeoutMs,
    // Cast: Fastify types `http` for its http2/https variants too; these are plain http.ServerOptions.
    http: { headersTimeout: options.headersTimeoutMs, connectionsCheckingInterval: 1000 } as never,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    childLoggerFactory: (logger, bindings, childOptions) => new LazyRequestLogger(logger, bindings, childOptions),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // strictTypes off: some schemas only document parameters (no type) and leave checks to the service.
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false, strictTypes: false } },
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    // Errors raised before routing (undecodable URL, over-long parameter) get our shape too.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, toApiError(error));
    },
  });

  // Every route is also entered into a router of our own, so an unknown method on a known path
  // can be told apart from an unknown path (405 with Allow, rather than 404).
  const knownRoutes = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (isRoutable(method)) {
        try {
          knownRoutes.on(method, route.url, () => {});
        } catch {
          // the same method and path registered twice (e.g. HEAD twice): already known
        }
      }
    }
  });

  const jsonParser = app.getDefaultJsonParser('error', 'error');
  // An empty JSON body (a POST with nothing to say) is treated as no body, not as malformed. The
  // shape is checked before parsing: JSON.parse of deeply nested text stalls the process.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    const problem = jsonShapeProblem(text);
    if (problem) return done(apiError('MALFORMED_JSON', problem), undefined);
    void jsonParser(request, text, done);
  });
  // A route that reads a JSON body takes no form body (415) unless it says so (schema.consumes).
  // Routes without a body (a cancel, a verify) ignore what a form-posting client sends.
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    const schema = request.routeOptions.schema;
    const readsJson = schema?.body !== undefined || request.routeOptions.config.docs?.body !== undefined;
    if (readsJson && !consumes(schema).includes(FORM_TYPE) && text.trim() !== '') {
      return done(
        apiError('UNSUPPORTED_MEDIA_TYPE', `This operation reads a JSON body; send it as application/json, not ${FORM_TYPE}.`),
        undefined,
      );
    }
    try {
      done(null, parseFormBody(text));
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)), undefined);
    }
  });
  for (const type of ['text/csv', 'text/plain', 'application/x-ndjson', 'application/jsonl']) {
    app.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => done(null, body));
  }

  // Hooks that never wait are written in callback style: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  // PostgreSQL cannot store U+0000 in text; refuse it at the door so it never becomes a 500 there.
  // And after validation (which coerces query strings) no number may be Infinity or NaN: "1e309"
  // passes JSON-schema range checks as Infinity and would fail deep in a query instead.
  app.addHook('preHandler', (request, _reply, done) => {
    done(inputProblem(request.params, request.query, request.body));
  });

  app.addHook('onResponse', (request, reply, done) => {
    options.metrics.http.record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    if (options.logRequests) {
      app.log.info(
        {
          reqId: request.id,
          method: request.method,
          // A query string may carry a secret (a portal link's token) or a guest's data.
          url: loggableUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiErr = toApiError(error);
    if (request.faultAnswered) {
      // The partner's own fault rule asked for this answer: no failure of pbs, no stack trace.
      request.log.info({ faultRule: request.faultRule, code: apiErr.code, status: apiErr.status }, 'answered by a fault rule');
    } else if (apiErr.code === 'SERVICE_UNAVAILABLE') {
      // Starting, stopping, or the database away: said once by the availability's log line
      // (app.ts), not once per request.
      if (!(error instanceof ApiError)) options.onOutage?.(error);
      request.log.debug({ err: error }, 'answered 503');
    } else if (apiErr.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, apiErr);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A route that matched and found nothing (a static file that is not there) is a plain 404.
    if (isRoutable(request.method) && knownRoutes.find(request.method, path)) {
      return sendError(reply, apiError('NOT_FOUND', `No such file: ${path}`));
    }
    const allowed = ROUTABLE_METHODS.filter((m) => m !== request.method && knownRoutes.find(m, path));
    if (allowed.length > 0) {
      return sendError(
        reply,
        apiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}.`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return sendError(reply, apiError('NOT_FOUND', `No route for ${request.method} ${path}`));
  });

  return app;
}

/** JSON schema of the error body, for the OpenAPI document. */
export const errorResponseSchema = {
  $id: 'ErrorResponse',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'description'],
      properties: {
        code: { type: 'string' },
        description: { type: 'string' },
        field: { type: ['string', 'null'] },
        instance: {},
      },
    },
  },
} as const;
