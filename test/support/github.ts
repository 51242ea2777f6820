/**
 * GitHub secret scanning as a test sends it: a P-256 key pair standing in
 * for GitHub's (its public half published in a keys document of GitHub's
 * shape), bodies signed as GitHub signs them, and the partner endpoint's
 * handler called as API Gateway calls it. Nothing reaches the internet.
 */
import { randomUUID } from 'node:crypto';
import { githubSigner, keysDocument, reported, signedHeaders, type GithubSigner } from './github-signing';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler } from '../../lambda/routes/github-secret-scanning/handler';
import { pinnedKeySource } from '../../lambda/domain/github-signatures';
import { portsOf, withGithubKeys } from '../../lambda/composition/services';
import { route } from '../../lambda/routes/github-secret-scanning/route';
import type { CallResult } from './api';
import { expectDocumentedResponse } from './openapi-responses';
import { testServices } from './services';

export const PUBLISHED = githubSigner();

/** The tests' services with GitHub's keys: `PUBLISHED` only. */
export function githubServices(services = testServices()) {
  return portsOf(withGithubKeys(services, pinnedKeySource(keysDocument(PUBLISHED))), route.ports);
}

const handler = makeHandler(() => githubServices()) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const PATH = '/functions/v1/github-secret-scanning';

/** POSTs `body` (text as sent) with `headers` to the partner endpoint's handler. */
export async function callGithub(body: string, headers: Record<string, string>, using = handler): Promise<CallResult & { text: string }> {
  const requestId = randomUUID();
  const allHeaders: Record<string, string> = { ...fixture.headers, ...headers };
  delete allHeaders.Authorization;
  const event = {
    ...fixture,
    resource: PATH,
    path: PATH,
    httpMethod: 'POST',
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([name, value]) => [name, [value]])),
    body,
    requestContext: { ...fixture.requestContext, resourcePath: PATH, httpMethod: 'POST', requestId, authorizer: null },
  } as unknown as APIGatewayProxyEvent;
  const result = await using(event, { awsRequestId: requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
  const text = result.body ?? '';
  const answer = { status: result.statusCode, headers: (result.headers ?? {}) as Record<string, string>, body: JSON.parse(text) as unknown };
  expectDocumentedResponse(PATH, 'POST', answer);
  return { ...answer, text };
}

/** A report signed by `PUBLISHED`, as GitHub sends it. */
export function callGithubSigned(entries: unknown, signer: GithubSigner = PUBLISHED): Promise<CallResult & { text: string }> {
  const body = JSON.stringify(entries);
  return callGithub(body, { 'Content-Type': 'application/json', ...signedHeaders(body, signer) });
}

export { handler as githubHandler, makeHandler as makeGithubHandler };
export { githubSigner, keysDocument, reported, signedHeaders, type GithubSigner };
