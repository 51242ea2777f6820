/**
 * POST /functions/v1/github-secret-scanning — GitHub's secret scanning
 * partner endpoint (docs/secret-scanning.md). GitHub finds values of this
 * service's shape in public code and sends them, signed; the signature is
 * checked on the raw bytes before anything else (401 otherwise, nothing
 * read or changed). Each value of a key of this service is acted on by its
 * key's `on_leak` and audited as `key.leaked`; the answer labels every token
 * by its SHA-256, never echoing one. No token reaches a log.
 */
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { jsonResponse } from '../../contract/response';
import { requestMetaOf, type ManagementEvent } from '../../http/event';
import { errorResponses, jsonBody } from '../../http/middleware';
import { githubSignature } from '../../http/github-signature';
import { apiRoute, observedApi } from '../../platform/observed';
import { environmentServices } from '../../composition/services';
import { githubKeysFromEnvironment, type GithubServices } from '../../composition/github-keys';
import { answerGithubReport } from '../../use-cases/leak-reports';
import { GITHUB_USER_ID } from '../../domain/leaks';
import { partnerActor } from '../../domain/actor';
import { githubReportSchema, type GithubReport } from './schema';
import { route } from './route';

type AnyEvent = ManagementEvent<unknown>;

async function answerReport(services: GithubServices, event: ManagementEvent<GithubReport>): Promise<APIGatewayProxyResult> {
  const meta = requestMetaOf(event, event.requestContext?.requestId ?? '');
  const labels = await answerGithubReport(services, event.input, partnerActor(GITHUB_USER_ID, meta));
  return jsonResponse(200, labels, meta.requestId);
}

export const makeHandler = (services: () => GithubServices) =>
  middy<AnyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(observedApi<AnyEvent, APIGatewayProxyResult>(services, { route: apiRoute }))
    .use(errorResponses(() => services().observe))
    .use(githubSignature(() => services().githubKeys, route.maxBodyBytes))
    .use(jsonBody(() => githubReportSchema, { array: true, maxBytes: route.maxBodyBytes }))
    // jsonBody refused anything but an array of reported tokens.
    .handler((event) => answerReport(services(), event as ManagementEvent<GithubReport>));

let withKeys: GithubServices | undefined;
export const handler = makeHandler(
  () => (withKeys ??= Object.assign(Object.create(environmentServices()) as GithubServices, { githubKeys: githubKeysFromEnvironment() })),
);
