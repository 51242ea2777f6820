/**
 * One admission for a key or identity with named limits or credits
 * (docs/limits.md): the key's hourly limit, every applicable named limit of
 * the key and of its identity, and the credits are checked and consumed all
 * or nothing, with the use recorded in the same write.
 *
 * - Key only: one conditional UpdateItem of the key's usage item (its meter).
 * - Key and identity: one TransactWriteItems of both meters.
 *
 * Every condition asserts what the decision rests on (meter-clauses.ts). A
 * failed condition returns the meter as it was; that copy is judged exactly
 * (domain/meters.ts `judgeMeter`): a refusal consumes nothing anywhere and
 * is recorded as a use without a slot, as the hourly limit's refusals are;
 * otherwise the write goes again with what was learned. A refusal is thus
 * always decided on a consistent copy of the meter that refused, and an
 * admission only by a write whose every condition held.
 *
 * Cost: an admitted verification of a key with its own limits and credits is
 * one write (ALL_NEW gives its figures); through an identity it is one
 * transaction and one consistent read of both meters for the figures.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { ItemKey } from '../contract/tables';
import { meterDefText, meterViewOf, type MeterView } from '../domain/meters';
import type { RecordUseResult } from '../domain/recording';
import { RecentMap } from '../platform/recent-map';
import { UsageDelta } from '../domain/usage-delta';
import { countedOf, usageClauses } from './usage-writes';
import { meterClauses, type MeterClauses } from './meter-clauses';
import { recordWithoutSlot } from './usage-windows';
import type { StoreTables } from './transactions';
import type { UsageMonths } from './usage-months';
import { USAGE } from './entities/usage';
import { IDENTITY } from './entities/identity';
import { chargedOwner, figuresOf, refusalOf, type MeteredUse, type MeterPart, type MeterRefusal } from './meter-judgement';
import type { OperationsOf } from '../contract/store-operations';
import { dueNotices, noticeMark, sendCreditNotices } from './credit-notices';

export type { MeteredUse };

/** Writes before the admission gives up (each failed one learned a newer meter); then the use is refused, never over-admitted. */
const MAX_ATTEMPTS = 8;

const nameOf = (key: ItemKey): string => `${key.pk}|${key.sk}`;

/** A write's outcome: the key's usage item after it; a conflict with another transaction; or the meters that failed a condition, seen as they were (`missing`: no such item). */
type WriteOutcome = { written: Record<string, unknown> } | 'conflict' | { missing: ('key' | 'identity')[] };

/** An item a failed condition returned: marshalled by the service (the document client leaves errors as they are). */
function returnedItem(item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item) return undefined;
  const first = Object.values(item)[0] as Record<string, unknown> | undefined;
  const marshalled =
    first !== null && typeof first === 'object' && Object.keys(first).length === 1 && /^(S|N|M|L|BOOL|NULL|SS|NS|B|BS)$/.test(Object.keys(first)[0] as string);
  return marshalled ? unmarshall(item as Parameters<typeof unmarshall>[0]) : (item as Record<string, NativeAttributeValue>);
}

function expression(c: MeterClauses) {
  return {
    UpdateExpression: `SET ${c.sets.join(', ')}${c.removes.length > 0 ? ` REMOVE ${c.removes.join(', ')}` : ''}`,
    ConditionExpression: c.conditions.join(' AND '),
    ExpressionAttributeNames: c.names,
    ExpressionAttributeValues: c.values,
  };
}

/** Each public method of MeteredUses and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const METERED_USES_OPERATIONS = { admit: ['admitMeteredUse', 'admitSharedMeteredUse', 'recordUse'] } as const satisfies OperationsOf<MeteredUses>;

export class MeteredUses {
  /** Each meter as this process last saw it: the assumptions the next write asserts. */
  private readonly seen = new RecentMap<string, MeterView>(10_000);

  constructor(
    private readonly tables: StoreTables,
    private readonly months: UsageMonths,
  ) {}

  /** Admits or refuses `use` (see the module comment); the use is recorded either way. */
  async admit(use: MeteredUse): Promise<RecordUseResult> {
    const parts: MeterPart[] = [{ owner: 'key', key: USAGE.key(use.keyId), def: use.keyDef }];
    if (use.identity) parts.push({ owner: 'identity', key: IDENTITY.key(use.identity.id), def: use.identity.def });
    const delta = new UsageDelta().add(countedOf(use));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const copied = this.months.toRemove(use.keyId);
      const charged = chargedOwner(parts);
      const writes = parts
        .map((part) => {
          const c = meterClauses({
            def: part.def,
            defText: meterDefText(part.def),
            view: this.viewOf(part.key),
            scopes: use.scopes,
            at: use.at,
            cost: part.owner === charged ? use.cost : 0,
            ...(part.owner === 'key' ? { hourly: use.rateLimit } : {}),
          });
          if (part.owner === 'key') {
            const usage = usageClauses(delta, copied);
            c.names = { ...c.names, ...usage.names };
            c.values = { ...c.values, ...usage.values };
            c.sets.push(...usage.sets);
            c.removes.push(...usage.removes);
          }
          // The meter must exist (an identity with no meter yet, limits added by an edit this process has not seen, is written as one).
          c.conditions.unshift('attribute_exists(pk)');
          return { part, clauses: c };
        })
        // An identity this verification spends nothing of (its limits' scopes not asked, no credits charged) takes no part.
        .filter((write) => write.part.owner === 'key' || write.clauses.sets.length > 0);
      const outcome =
        writes.length === 1
          ? await this.writeOne(writes[0]!.part, writes[0]!.clauses)
          : await this.writeBoth(
              writes.map((w) => w.clauses),
              writes.map((w) => w.part),
            );
      if (outcome === 'conflict') {
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
        continue;
      }
      if ('written' in outcome) {
        const item = USAGE.read(outcome.written);
        if (item) await this.months.afterWrite(item, copied, use.at);
        const figures = figuresOf(use, parts, this.viewOf);
        await this.notices(use, parts, false);
        return { admitted: true, ...figures };
      }
      // A condition failed: judge the meters as they were (an identity gone meanwhile takes no part), under their own definitions.
      if (outcome.missing.includes('key')) return { admitted: false, reason: 'NO_USAGE_ITEM' };
      if (outcome.missing.includes('identity')) parts.pop();
      for (const part of parts) part.def = this.viewOf(part.key)?.def ?? part.def;
      const refusal = refusalOf(use, parts, this.viewOf);
      if (refusal) return this.refuse(use, parts, delta, refusal);
    }
    return this.refuse(use, parts, delta, { reason: 'RATE_LIMITED', retryAt: use.at.getTime() + 1000, hourlyRefused: false });
  }

  /** credits.low and credits.exhausted of the charged meter, when due (credit-notices.ts); one that fails to go is left to a later call. */
  private async notices(use: MeteredUse, parts: MeterPart[], refusedForCredits: boolean): Promise<void> {
    const part = parts.find((candidate) => candidate.owner === chargedOwner(parts));
    const view = part && this.viewOf(part.key);
    const due = view ? dueNotices(view, use.at, refusedForCredits) : [];
    if (!part || !view?.credits || due.length === 0) return;
    const id = part.owner === 'key' ? use.keyId : (use.identity?.id as string);
    try {
      const marks = await sendCreditNotices(this.tables, { key: part.key, owner: part.owner, id, teamId: use.teamId }, view, use.at, due);
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

  /** A meter as this process last saw it. */
  private readonly viewOf = (key: ItemKey): MeterView | undefined => this.seen.get(nameOf(key));

  private remember(key: ItemKey, item: Record<string, unknown>): void {
    this.seen.set(nameOf(key), meterViewOf(item));
  }

  private async writeOne(part: MeterPart, c: MeterClauses): Promise<WriteOutcome> {
    try {
      const result = await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: part.key,
          ...expression(c),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const written = result.Attributes ?? {};
      this.remember(part.key, written);
      return { written };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const item = returnedItem(error.Item as Record<string, unknown> | undefined);
      if (!item) return { missing: [part.owner] };
      this.remember(part.key, item);
      return { missing: [] };
    }
  }

  private async writeBoth(clauses: MeterClauses[], parts: MeterPart[]): Promise<WriteOutcome> {
    try {
      await this.tables.db.send(
        new TransactWriteCommand({
          TransactItems: parts.map((part, i) => ({
            Update: { TableName: this.tables.keyTableName, Key: part.key, ...expression(clauses[i]!), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
          })),
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (!reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'conflict';
      const missing: ('key' | 'identity')[] = [];
      reasons.forEach((reason, i) => {
        const part = parts[i]!;
        if (reason.Code !== 'ConditionalCheckFailed') return;
        const item = returnedItem(reason.Item as Record<string, unknown> | undefined);
        if (item) this.remember(part.key, item);
        else missing.push(part.owner);
      });
      return { missing };
    }
    // A transaction returns no items: the figures are read after it.
    const { Responses } = await this.tables.db.send(
      new BatchGetCommand({ RequestItems: { [this.tables.keyTableName]: { Keys: parts.map((part) => part.key), ConsistentRead: true } } }),
    );
    let written: Record<string, unknown> = {};
    for (const item of Responses?.[this.tables.keyTableName] ?? []) {
      const part = parts.find((p) => p.key.pk === item.pk && p.key.sk === item.sk);
      if (part) this.remember(part.key, item);
      if (part?.owner === 'key') written = item;
    }
    return { written };
  }

  private async refuse(use: MeteredUse, parts: MeterPart[], delta: UsageDelta, refusal: MeterRefusal): Promise<RecordUseResult> {
    const copied = this.months.toRemove(use.keyId);
    const item = await recordWithoutSlot(this.tables, use.keyId, delta, copied);
    if (!item) return { admitted: false, reason: 'NO_USAGE_ITEM' };
    await this.months.afterWrite(item, copied, use.at);
    this.remember(USAGE.key(use.keyId), item as unknown as Record<string, unknown>);
    const { rateLimit, meters } = figuresOf(use, parts, this.viewOf);
    if (refusal.reason === 'USAGE_EXCEEDED') {
      await this.notices(use, parts, true);
      return { admitted: false, reason: 'USAGE_EXCEEDED', rateLimit, meters };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((refusal.retryAt - use.at.getTime()) / 1000));
    // The hourly figures stay the hourly limit's own unless it refused too; Retry-After is the limits' together.
    const hourly = refusal.hourlyRefused ? { ...rateLimit, remaining: 0, retryAfterSeconds } : rateLimit;
    return { admitted: false, reason: 'RATE_LIMITED', rateLimit: hourly, meters: { ...meters, retryAfterSeconds } };
  }
}
