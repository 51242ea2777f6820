/**
 * Who made a change, as its audit record keeps it: the calling key, its
 * user, and facts of the request. The use cases build it; the HTTP adapter
 * only gathers the request facts (http/event.ts).
 */
import type { VerifiedKey } from './model';
import type { AuditActor } from './audit-events';
import { redactText } from '../platform/redaction';

/** Facts about the HTTP request that audit records keep. */
export interface RequestMeta {
  requestId: string;
  sourceIp: string | null;
  userAgent: string | null;
}

/** The most of a User-Agent an audit record keeps (API Gateway lets through 10 KB of headers). */
export const AUDIT_USER_AGENT_CHARS = 512;

/**
 * The audit actor of a management call: the calling key, its user, and the
 * request. The User-Agent is the caller's free text: a key value pasted into
 * it is replaced before it is stored (an audit record never holds one), then
 * it is cut to AUDIT_USER_AGENT_CHARS.
 */
export function actorOf(caller: VerifiedKey, meta: RequestMeta): AuditActor {
  return requestActor(caller.created_by, caller.id, meta);
}

/** The audit actor of a partner's signed request (GitHub's): no key of this service; its address and request, as for a key. */
export function partnerActor(userId: string, meta: RequestMeta): AuditActor {
  return requestActor(userId, null, meta);
}

function requestActor(userId: string, keyId: string | null, meta: RequestMeta): AuditActor {
  return {
    user_id: userId,
    key_id: keyId,
    source_ip: meta.sourceIp,
    user_agent: meta.userAgent === null ? null : redactText(meta.userAgent).slice(0, AUDIT_USER_AGENT_CHARS),
    request_id: meta.requestId,
  };
}

/** The acting user of what the service does by itself (a schedule, a delivery). */
export const SYSTEM_USER_ID = 'system';

/** The audit actor of what the service does by itself: no key, no address; `requestId` names the run (a Lambda request id). */
export function systemActor(requestId: string): AuditActor {
  return { user_id: SYSTEM_USER_ID, key_id: null, source_ip: null, user_agent: null, request_id: requestId };
}
