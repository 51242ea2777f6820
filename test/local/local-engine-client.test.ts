/**
 * Clients of DynamoDB Local send each request with a fixed, unsigned
 * `Authorization` header (lambda/composition/local-engine.ts): the engine
 * reads only its credential scope. Shown against the run's engine: the
 * exact headers sent, and that a SigV4-signing client with the same key id
 * and region sees the same tables (the same namespace): the file's key
 * table, which its setup made unsigned.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FinalizeRequestMiddleware, HttpRequest, MetadataBearer } from '@smithy/types';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoClient } from '../../local/dynamodb-local';

const endpoint = process.env.DYNAMODB_ENDPOINT as string;

/** The headers of every request `client` sends, as they leave it (after the signing step). */
function sentHeaders(client: DynamoDBClient): Array<Record<string, string>> {
  const sent: Array<Record<string, string>> = [];
  const capture: FinalizeRequestMiddleware<object, MetadataBearer> = (next) => (args) => {
    sent.push({ ...(args.request as HttpRequest).headers });
    return next(args);
  };
  client.middlewareStack.addRelativeTo(capture, { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'captureSentHeaders' });
  return sent;
}

/** The status of this file's key table (made by the file's setup through `localDynamoClient`) as `client` sees it. */
async function keyTableStatus(client: DynamoDBClient): Promise<string | undefined> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: process.env.KEY_TABLE_NAME }));
  return Table?.TableStatus;
}

describe('clients of DynamoDB Local', () => {
  const clients: DynamoDBClient[] = [];
  afterAll(() => clients.forEach((client) => client.destroy()));

  it.each([
    ['the services’ client (DYNAMODB_ENDPOINT set)', () => createDynamoClient()],
    ['the local runtime’s client', () => localDynamoClient(endpoint)],
  ])('%s sends the fixed credential scope unsigned, and sees the tables a signing client sees', async (_name, build) => {
    // Prepare
    const unsigned = build();
    const signing = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    clients.push(unsigned, signing);
    const sent = sentHeaders(unsigned);
    const signedSent = sentHeaders(signing);

    // Act
    const [seen, seenSigned] = await Promise.all([keyTableStatus(unsigned), keyTableStatus(signing)]);

    // Assess
    expect(sent[0]?.authorization).toBe('AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0');
    expect(Object.keys(sent[0] ?? {}).filter((name) => name.startsWith('x-amz-'))).not.toContain('x-amz-date');
    // The signing client really signs: the comparison is between the two ways.
    expect(signedSent[0]?.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/,
    );
    // One namespace: a key id or region the engine read differently would answer ResourceNotFoundException to one of them.
    expect([seen, seenSigned]).toEqual(['ACTIVE', 'ACTIVE']);
  });
});
