/**
 * What a function's storage operations come to (lambda/contract/store-operations.ts):
 * the IAM actions it is granted on each table and index, and the DynamoDB
 * requests a table's throttle alarm must watch. Read at synth and by the tests.
 */
import { STORE_OPERATIONS, type OperationAccess, type StoreOperation, type TableAction } from './store-operations';

type AccessPart = 'keyTable' | 'keyTeamIndex' | 'auditTable' | 'auditTeamIndex';

/** The union of the operations' access, each list sorted: what a function is granted. */
export function accessOf(operations: readonly StoreOperation[]): Record<AccessPart, TableAction[]> {
  const union = (part: AccessPart): TableAction[] => [...new Set(operations.flatMap((name) => (STORE_OPERATIONS[name] as OperationAccess)[part] ?? []))].sort();
  return {
    keyTable: union('keyTable'),
    keyTeamIndex: union('keyTeamIndex'),
    auditTable: union('auditTable'),
    auditTeamIndex: union('auditTeamIndex'),
  };
}

/** A DynamoDB API request, as its CloudWatch `Operation` dimension names it. */
export type TableRequest = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'TransactWriteItems';

/** The actions a TransactWriteItems request carries as its items; a transactional operation's other actions are requests of their own. */
const TRANSACTION_ITEM_ACTIONS: readonly TableAction[] = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

/**
 * The requests `operations` send to a table (its indexes included), each
 * list sorted: what a throttle alarm on that table must watch. A
 * transactional operation sends TransactWriteItems, and any read beside it
 * as a request of its own (an audited one reads the chain head: GetItem).
 */
export function requestsOf(operations: readonly StoreOperation[], table: 'key' | 'audit'): TableRequest[] {
  const requests = new Set<TableRequest>();
  for (const name of operations) {
    const access = STORE_OPERATIONS[name] as OperationAccess;
    const actions =
      table === 'key' ? [...(access.keyTable ?? []), ...(access.keyTeamIndex ?? [])] : [...(access.auditTable ?? []), ...(access.auditTeamIndex ?? [])];
    if (actions.length === 0) continue;
    if (access.transactional) requests.add('TransactWriteItems');
    const plain = access.transactional ? actions.filter((action) => !TRANSACTION_ITEM_ACTIONS.includes(action)) : actions;
    for (const action of plain) requests.add(action.replace('dynamodb:', '') as TableRequest);
  }
  return [...requests].sort();
}
