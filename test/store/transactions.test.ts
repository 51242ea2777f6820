/**
 * A transaction cancelled only because another transaction was writing one
 * of its items at the same moment (`TransactionConflict`: two keys joining
 * one identity) wrote nothing, so it is sent again, identical, up to four
 * times; a cancellation with a failed condition is an outcome at once.
 * DynamoDB Local runs transactions one at a time and never answers a
 * conflict, so the client here answers as DynamoDB does under contention
 * and the test asserts the exact requests sent.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Transactions, type TransactItem } from '../../lambda/store/transactions';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

/** A client that answers each TransactWriteItems with the next of `answers` (an error thrown, or success) and keeps what it was sent. */
function clientAnswering(answers: Array<Error | 'ok'>) {
  const sent: unknown[] = [];
  const db = {
    send: async (command: TransactWriteCommand) => {
      sent.push(command.input);
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { transactions: new Transactions({ db, keyTableName: 'keys', auditTableName: 'audit' }), sent };
}

const ITEMS: TransactItem[] = [
  {
    Update: { TableName: 'keys', Key: { pk: 'IDENTITY#1', sk: 'IDENTITY' }, UpdateExpression: 'ADD key_count :one', ExpressionAttributeValues: { ':one': 1 } },
  },
  { Put: { TableName: 'keys', Item: { pk: 'KEY#1', sk: 'KEY' } } },
];

describe('Transactions.transact', () => {
  it('a cancellation only for a conflict is sent again, identical, and commits', async () => {
    // Prepare
    const { transactions, sent } = clientAnswering([cancelled('TransactionConflict', 'None'), cancelled('None', 'TransactionConflict'), 'ok']);

    // Act
    const outcome = await transactions.transact(ITEMS);

    // Assess
    expect(outcome).toEqual({ committed: true });
    expect(sent).toEqual([{ TransactItems: ITEMS }, { TransactItems: ITEMS }, { TransactItems: ITEMS }]);
  });

  it('a conflict that lasts is an outcome after the fourth attempt', async () => {
    // Prepare
    const { transactions, sent } = clientAnswering(Array.from({ length: 6 }, () => cancelled('TransactionConflict', 'None')));

    // Act
    const outcome = await transactions.transact(ITEMS);

    // Assess
    expect(outcome).toEqual({ committed: false, reasons: ['TransactionConflict', 'None'] });
    expect(sent).toHaveLength(4);
  });

  it('a failed condition is an outcome at once, even beside a conflict', async () => {
    // Prepare
    const { transactions, sent } = clientAnswering([cancelled('ConditionalCheckFailed', 'TransactionConflict'), 'ok']);

    // Act
    const outcome = await transactions.transact(ITEMS);

    // Assess
    expect(outcome).toEqual({ committed: false, reasons: ['ConditionalCheckFailed', 'TransactionConflict'] });
    expect(sent).toHaveLength(1);
  });
});
