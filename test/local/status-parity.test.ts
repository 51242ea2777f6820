/**
 * What the gateway itself answers agrees between AWS and the local runtime:
 * one table of requests, each checked against the local server (real
 * handlers) and against the synthesized API (which method or gateway
 * response would answer it, with which status, code, Allow and CORS).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../lambda/routes';
import { moduleHandlerLoader } from '../../local/route-handlers';
import { resourcesOf, synthesizeService } from '../cdk/service';
import { startTestServer, type TestServer } from '../support/http';
import { testServices } from '../support/services';

const VERIFY = '/functions/v1/verify-api-key';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The error code of a gateway-made answer; absent when the route's handler answers. */
  readonly code?: string;
  readonly allow?: string;
}

const CASES: readonly Case[] = [
  { name: 'an unknown path', method: 'GET', path: '/functions/v1/no-such-route', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'a wrong method on create', method: 'PUT', path: '/functions/v1/generate-api-key', status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST' },
  { name: 'OPTIONS on a management route', method: 'OPTIONS', path: '/functions/v1/list-api-keys', status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET' },
  { name: 'POST on a GET route', method: 'POST', path: '/functions/v1/get-api-key-usage', status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET' },
  { name: 'GET on the verify route', method: 'GET', path: VERIFY, status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST, OPTIONS' },
  { name: 'OPTIONS on the verify route (its own preflight)', method: 'OPTIONS', path: VERIFY, status: 204 },
];

/** The full path of every API Gateway resource of the template, by logical id. */
function resourcePaths(template: Template): Map<string, string> {
  const resources = resourcesOf(template, 'AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources[id];
    const parent = resource.Properties?.ParentId as { Ref?: string };
    const path = `${parent.Ref ? pathOf(parent.Ref) : ''}/${resource.Properties?.PathPart as string}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

/** What the synthesized API answers for a case: status, code, Allow, CORS; or the Lambda integration of a route. */
function awsAnswer(template: Template, testCase: Case) {
  const paths = resourcePaths(template);
  const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).map((method) => ({
    path: paths.get((method.Properties?.ResourceId as { Ref: string }).Ref),
    ...method.Properties,
  })) as Array<Record<string, unknown> & { path?: string }>;
  const onPath = methods.filter((method) => method.path === testCase.path);
  if (onPath.length === 0) {
    const response = Object.values(resourcesOf(template, 'AWS::ApiGateway::GatewayResponse')).find(
      (candidate) => candidate.Properties?.ResponseType === 'MISSING_AUTHENTICATION_TOKEN',
    );
    const body = JSON.parse((response?.Properties?.ResponseTemplates as Record<string, string>)['application/json']);
    const cors = (response?.Properties?.ResponseParameters as Record<string, string>)['gatewayresponse.header.Access-Control-Allow-Origin'];
    return { status: Number(response?.Properties?.StatusCode), code: body.error.code, cors };
  }
  const exact = onPath.find((method) => method.HttpMethod === testCase.method);
  if (exact) return { status: 'handler', integration: (exact.Integration as { Type: string }).Type };
  const any = onPath.find((method) => method.HttpMethod === 'ANY');
  const response = (any?.Integration as { IntegrationResponses: Array<Record<string, unknown>> }).IntegrationResponses[0];
  const parameters = response.ResponseParameters as Record<string, string>;
  const body = JSON.parse((response.ResponseTemplates as Record<string, string>)['application/json']);
  return {
    status: Number(response.StatusCode),
    code: body.error.code,
    allow: parameters['method.response.header.Allow'].replaceAll("'", ''),
    cors: parameters['method.response.header.Access-Control-Allow-Origin'],
  };
}

describe('gateway status parity (AWS and local)', () => {
  let server: TestServer;
  let template: Template;
  beforeAll(async () => {
    server = await startTestServer({ loadHandler: moduleHandlerLoader(testServices) });
    template = synthesizeService().template;
  });
  afterAll(() => server.close());

  it.each(CASES)('$name → $status', async (testCase) => {
    // Act
    const local = await server.request(testCase.method, testCase.path, { headers: { Origin: 'https://app.example.com' } });
    const aws = awsAnswer(template, testCase);

    // Assess: the local answer
    expect(local.status).toBe(testCase.status);
    if (testCase.code === undefined) {
      // A route's own handler answers, here and behind API Gateway (a Lambda proxy method).
      expect(aws).toEqual({ status: 'handler', integration: 'AWS_PROXY' });
      return;
    }
    expect(local.body).toEqual({ error: { code: testCase.code, message: expect.any(String), details: [], request_id: expect.any(String) } });
    expect(local.headers['access-control-allow-origin']).toBe('*');
    if (testCase.allow) expect(local.headers.allow).toBe(testCase.allow);

    // Assess: the gateway's answer in AWS
    expect(aws).toEqual({ status: testCase.status, code: testCase.code, cors: "'*'", ...(testCase.allow ? { allow: testCase.allow } : {}) });
  });

  it('every routed path answers any other method with a 405 in AWS (no 403 "Missing Authentication Token")', () => {
    const paths = resourcePaths(template);
    const anyPaths = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'))
      .filter((method) => method.Properties?.HttpMethod === 'ANY')
      .map((method) => paths.get((method.Properties?.ResourceId as { Ref: string }).Ref))
      .sort();
    expect(anyPaths).toEqual([...new Set(ROUTES.map((route) => route.path))].sort());
  });
});
