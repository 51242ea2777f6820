/**
 * `credits.low` (below 10 % of the last refill, or of the balance set when
 * there is no refill) and `credits.exhausted` (nothing left, or a call
 * refused for credits), each at most once per refill period (without a
 * refill, once per balance set): the verification that crosses writes the
 * meter's mark for the period (`cr_low`, `cr_exh`) and the audit record in
 * one transaction, conditional on the mark not being there yet, so however
 * many calls cross at once, one record is written; the record becomes the
 * lifecycle event (publish-events). The marks come back with every
 * admission's item, so a process that has seen one sends no second write.
 */
import { randomUUID } from 'node:crypto';
import type { ItemKey } from '../contract/tables';
import { AuditEventType } from '../domain/audit-events';
import { systemActor } from '../domain/actor';
import { creditsRemaining, refillPeriod, type MeterOwner, type MeterView } from '../domain/meters';
import { auditItem } from './entities/audit-record';
import { Transactions, type StoreTables } from './transactions';
import { chargedOwner, type MeteredUse, type MeterPart } from './meter-judgement';

/** The mark of the current period on a meter (the refill period, or `balance` without a refill). */
const noticeMark = (view: MeterView, at: Date): string | undefined => {
  const setting = view.def.credits;
  if (!setting) return undefined;
  return setting.refill ? refillPeriod(setting.refill, at) : 'balance';
};

/** The notices a meter as seen after a verification is due, by their mark attribute. */
function dueNotices(view: MeterView, at: Date, refusedForCredits: boolean): { type: 'credits.low' | 'credits.exhausted'; attribute: 'cr_low' | 'cr_exh' }[] {
  const setting = view.def.credits;
  const mark = noticeMark(view, at);
  if (!setting || !view.credits || mark === undefined) return [];
  const remaining = creditsRemaining(view.credits, setting, at);
  const base = setting.refill ? setting.refill.amount : view.credits.base;
  const due: ReturnType<typeof dueNotices> = [];
  if (base !== undefined && remaining < base / 10 && view.credits.marks?.low !== mark) due.push({ type: 'credits.low', attribute: 'cr_low' });
  if ((remaining === 0 || refusedForCredits) && view.credits.marks?.exhausted !== mark) due.push({ type: 'credits.exhausted', attribute: 'cr_exh' });
  return due;
}

/**
 * Writes the notices `due` for the meter at `meter.key` (whose view is `view`),
 * each once per period; answers the marks written, for the caller's copy.
 */
async function sendCreditNotices(
  tables: StoreTables,
  meter: { key: ItemKey; owner: MeterOwner; id: string; teamId: string },
  view: MeterView,
  at: Date,
  /** The notices due (`dueNotices`). */
  due: ReturnType<typeof dueNotices>,
): Promise<('cr_low' | 'cr_exh')[]> {
  const mark = noticeMark(view, at);
  const setting = view.def.credits;
  if (mark === undefined || !setting || !view.credits) return [];
  const transactions = new Transactions(tables);
  const written: ('cr_low' | 'cr_exh')[] = [];
  for (const notice of due) {
    const audit = auditItem({
      event_type: notice.type === 'credits.low' ? AuditEventType.CREDITS_LOW : AuditEventType.CREDITS_EXHAUSTED,
      occurred_at: at.toISOString(),
      team_id: meter.teamId,
      actor: systemActor(randomUUID()),
      ...(meter.owner === 'key' ? { key_id: meter.id } : { identity_id: meter.id }),
      credits: { remaining: creditsRemaining(view.credits, setting, at), period: setting.refill ? mark : null },
    });
    const outcome = await transactions.transact([
      {
        Update: {
          TableName: tables.keyTableName,
          Key: meter.key,
          UpdateExpression: 'SET #mark = :mark',
          ConditionExpression: 'attribute_exists(cr_left) AND (attribute_not_exists(#mark) OR #mark <> :mark)',
          ExpressionAttributeNames: { '#mark': notice.attribute },
          ExpressionAttributeValues: { ':mark': mark },
        },
      },
      transactions.putAudit(audit),
    ]);
    // Not committed: another call crossed first (its record is the one), or the credits went meanwhile.
    if (outcome.committed) written.push(notice.attribute);
  }
  return written;
}

/** credits.low and credits.exhausted of the meter `use` is charged to, when due; one that fails to go is left to a later call. */
export async function sendDueNotices(
  tables: StoreTables,
  use: MeteredUse,
  parts: readonly MeterPart[],
  viewOf: (key: ItemKey) => MeterView | undefined,
  refusedForCredits: boolean,
): Promise<void> {
  const part = parts.find((candidate) => candidate.owner === chargedOwner(parts));
  const view = part && viewOf(part.key);
  const due = view ? dueNotices(view, use.at, refusedForCredits) : [];
  if (!part || !view?.credits || due.length === 0) return;
  const id = part.owner === 'key' ? use.keyId : (use.identity?.id as string);
  try {
    const marks = await sendCreditNotices(tables, { key: part.key, owner: part.owner, id, teamId: use.teamId }, view, use.at, due);
    const mark = noticeMark(view, use.at);
    view.credits.marks = {
      ...view.credits.marks,
      ...(marks.includes('cr_low') ? { low: mark } : {}),
      ...(marks.includes('cr_exh') ? { exhausted: mark } : {}),
    };
  } catch {
    // A throttled or failed write: the next verification that finds it due sends it.
  }
}
