import type { onRequestHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { apiError } from '../errors.js';
import type { FailureThrottle } from '../rate-limit.js';
import type { OperatorRole } from '../auth/operator.js';
import { auditDraft, auditDue, closeAudited, runAudited, type AuditDraft } from '../audit/audit-trail.js';
import { authenticateOperator, operatorRoleRefusal, type OperatorAuthentication } from './authenticate.js';
import { failureKey, throttledAuthentication } from './auth-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** An operator change's audit record, until written (audit-trail.ts). */
    auditDraft?: AuditDraft;
  }
}

export interface OperatorGuardOptions {
  operators: OperatorAuthentication;
  authFailures: FailureThrottle;
  /** The audit trail: a request's record when no transaction of it wrote one (audit-trail.ts). */
  audit: { wallNow: () => number; writeAlone: (draft: AuditDraft) => Promise<void> };
}

/**
 * The hooks of `/admin/v1` routes (docs/security.md "Operators and roles", "Audit trail"): who
 * the operator is and whether their role reaches the route's; for a change (or a read that may
 * show a secret), the draft of its audit record, and its writing when no transaction wrote it.
 */
export function operatorGuards(options: OperatorGuardOptions) {
  const authenticate = (need: OperatorRole): onRequestHookHandler =>
    async function operatorGuard(request) {
      const operator = await throttledAuthentication(options.authFailures, failureKey(request.ip, 'operator'), () =>
        authenticateOperator(request, options.operators),
      );
      request.operator = operator;
      const refusal = operatorRoleRefusal(operator, need);
      if (refusal) throw apiError('AUTHORIZATION_ERROR', refusal);
    };

  /** Callback style, so the handler runs inside the draft's context; the request's first transaction writes it. */
  const openAuditDraft: preHandlerHookHandler = function auditDraftOpen(request, reply, done) {
    const operator = request.operator;
    if (!operator) return done();
    const routeUrl = request.routeOptions.url ?? request.url;
    const { ip, method, url, params, body } = request;
    const draft = auditDraft(operator, { ip, method, url, routeUrl, params, body }, options.audit.wallNow());
    if (request.routeOptions.config.revealsSecret) draft.onlyIfRevealed = true;
    request.auditDraft = draft;
    // The draft is done with once the answer is out (audit-trail.ts `closed`): 'close' comes then,
    // and also when the client went away before it.
    reply.raw.once('close', () => closeAudited(draft));
    runAudited(draft, () => done());
  };

  /** A change that ran no transaction (a bootstrap session's cookie, a secret shown) is recorded as its answer goes out. */
  const recordAuditAlone: onSendHookHandler = async function auditRecordAlone(request, reply, payload) {
    const draft = request.auditDraft;
    if (!draft || !auditDue(draft) || reply.statusCode >= 400) return payload;
    draft.written = true;
    try {
      await options.audit.writeAlone(draft);
    } catch (error) {
      request.log.error({ err: error, action: draft.action }, 'could not write the audit record of a change');
    }
    return payload;
  };

  return { authenticate, openAuditDraft, recordAuditAlone };
}
