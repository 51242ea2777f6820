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
import { answerGithubReport } from '../../use-cases/leak-reports';
import { GITHUB_USER_ID } from '../../domain/leaks';
import { partnerActor } from '../../domain/actor';
import { githubReportSchema, type GithubReport } from './schema';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

type AnyEvent = ManagementEvent<unknown>;

async function answerReport(services: PortsOf<typeof route>, event: ManagementEvent<GithubReport>): Promise<APIGatewayProxyResult> {
  const meta = requestMetaOf(event, event.requestContext?.requestId ?? '');
  const labels = await answerGithubReport(services, event.input, partnerActor(GITHUB_USER_ID, meta));
  return jsonResponse(200, labels, meta.requestId);
}

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  middy<AnyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(observedApi<AnyEvent, APIGatewayProxyResult>(services, { route: apiRoute }))
    .use(errorResponses(() => services().observe))
    .use(githubSignature(() => services().githubKeys, route.maxBodyBytes))
    .use(jsonBody(() => githubReportSchema, { array: true, maxBytes: route.maxBodyBytes }))
    // jsonBody refused anything but an array of reported tokens.
    .handler((event) => answerReport(services(), event as ManagementEvent<GithubReport>));

export const handler = makeHandler(functionServices(route));
