/**
 * Linking a transaction's audit records into their team's hash chain
 * (domain/audit-chain.ts) as it commits: the team's head is read, each
 * record is redacted (as the archive would) and linked after it, and the
 * head's advance joins the transaction on condition that its `seq` is still
 * the one read. A change that lost the head to another change of the same
 * team is linked again on the new head and sent again (store/transactions.ts).
 */
import { GetCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { AUDIT_STORAGE_ATTRIBUTES, EMPTY_CHAIN, linkRecord, type ChainHead } from '../domain/audit-chain';
import { redactStrings } from '../platform/redaction';
import { AUDIT_CHAIN_HEAD, movedChainIndex } from './entities/audit-chain-head';
import { chainIndex } from './entities/audit-record';

// Spelled here, not taken from transactions.ts, which calls this module: no circle between the two.
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
interface StoreTables {
  readonly db: DynamoDBDocumentClient;
  readonly keyTableName: string;
}

/** The team's chain head, strongly consistent (the empty chain before its first record). */
async function readHead(tables: StoreTables, teamId: string): Promise<ChainHead> {
  const { Item } = await tables.db.send(new GetCommand({ TableName: tables.keyTableName, Key: AUDIT_CHAIN_HEAD.key(teamId), ConsistentRead: true }));
  const head = AUDIT_CHAIN_HEAD.read(Item);
  return head ? { seq: head.seq, hash: head.hash } : EMPTY_CHAIN;
}

/** A record as the chain holds it: every string of the event redacted as the archive redacts (storage attributes as they are), then linked (its hash leaves the storage attributes out). */
function linked(record: Record<string, unknown>, head: ChainHead): Record<string, unknown> {
  const chained = linkRecord(redactStrings(record, AUDIT_STORAGE_ATTRIBUTES).value, head);
  return { ...chained, ...chainIndex(String(chained.team_id), chained.seq) };
}

/** The head's advance from `from` to `to`, on condition that nobody moved it meanwhile; it joins the moved list. */
function advance(tables: StoreTables, teamId: string, from: ChainHead, to: ChainHead, at: string): TransactItem {
  const moved = movedChainIndex(teamId);
  return {
    Update: {
      TableName: tables.keyTableName,
      Key: AUDIT_CHAIN_HEAD.key(teamId),
      UpdateExpression: 'SET entity = :entity, team_id = :team, seq = :seq, #hash = :hash, updated_at = :at, gsi1pk = :moved, gsi1sk = :team',
      ConditionExpression: from.seq === 0 ? 'attribute_not_exists(pk)' : 'seq = :from',
      ExpressionAttributeNames: { '#hash': 'hash' },
      ExpressionAttributeValues: {
        ':entity': 'audit-chain-head',
        ':team': teamId,
        ':seq': to.seq,
        ':hash': to.hash,
        ':at': at,
        ':moved': moved.gsi1pk,
        ...(from.seq === 0 ? {} : { ':from': from.seq }),
      },
    },
  };
}

/**
 * `items` with every audit record linked on its team's current head (in
 * the order they stand), followed by one head advance per team.
 */
export async function linkedItems(tables: StoreTables, items: readonly TransactItem[], isAuditPut: (item: TransactItem) => boolean): Promise<TransactItem[]> {
  const teams = [...new Set(items.filter(isAuditPut).map((item) => String(item.Put?.Item?.team_id)))];
  const heads = new Map(await Promise.all(teams.map(async (team) => [team, await readHead(tables, team)] as const)));
  const first = new Map(heads);
  let lastAt = '';
  const out = items.map((item): TransactItem => {
    if (!isAuditPut(item) || !item.Put?.Item) return item;
    const team = String(item.Put.Item.team_id);
    const record = linked(item.Put.Item, heads.get(team) ?? EMPTY_CHAIN);
    heads.set(team, { seq: record.seq as number, hash: record.hash as string });
    lastAt = String(record.occurred_at);
    return { Put: { ...item.Put, Item: record } };
  });
  return [...out, ...teams.map((team) => advance(tables, team, first.get(team) ?? EMPTY_CHAIN, heads.get(team) ?? EMPTY_CHAIN, lastAt))];
}

/** Whether a cancelled transaction lost only its chain head (another change of the team linked first): then it is linked again and resent. */
export function lostOnlyTheHead(reasons: readonly string[], ownItems: number): boolean {
  const own = reasons.slice(0, ownItems);
  const heads = reasons.slice(ownItems);
  const passed = (reason: string) => reason === 'None' || reason === 'TransactionConflict';
  return own.every(passed) && heads.some((reason) => reason === 'ConditionalCheckFailed' || reason === 'TransactionConflict');
}
