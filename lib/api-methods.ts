/**
 * The methods of a routed path besides its route's own: 405 for any other
 * method (a mock integration, the house error shape), and a CORS preflight
 * where a route's function answers its own.
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { allowedMethods, type RouteDefinition } from '../lambda/contract/routes';
import { acknowledge, cfnOf } from './nag';
import { errorTemplate } from './gateway-responses';

/**
 * Any other method on a routed path (OPTIONS too, unless a route answers its
 * own preflight): 405 with Allow, in the house shape, as the local runtime
 * answers it. Without it API Gateway answers 403 (then 404).
 */
export function addMethodNotAllowed(restApi: apigateway.RestApi, routes: readonly RouteDefinition[]): void {
  for (const routedPath of [...new Set(routes.map((route) => route.path))]) {
    const allow = allowedMethods(routes, routedPath).join(', ');
    const anyMethod = restApi.root.resourceForPath(routedPath).addMethod(
      'ANY',
      new apigateway.MockIntegration({
        requestTemplates: { 'application/json': '{"statusCode": 405}' },
        // WHEN_NO_MATCH, not NEVER: with NEVER a request of another content type (text/plain) gets API Gateway's own
        // 415 body; passed through, it reaches the mock, whose only (default) integration response is this 405.
        passthroughBehavior: apigateway.PassthroughBehavior.WHEN_NO_MATCH,
        integrationResponses: [
          {
            statusCode: '405',
            responseParameters: { 'method.response.header.Allow': `'${allow}'`, 'method.response.header.Access-Control-Allow-Origin': "'*'" },
            responseTemplates: errorTemplate('METHOD_NOT_ALLOWED', `This method is not allowed on ${routedPath}; use ${allow}.`),
          },
        ],
      }),
      {
        operationName: `method-not-allowed${routedPath.replaceAll('/', '-')}`,
        methodResponses: [
          { statusCode: '405', responseParameters: { 'method.response.header.Allow': true, 'method.response.header.Access-Control-Allow-Origin': true } },
        ],
      },
    );
    acknowledge(
      cfnOf(anyMethod),
      'AwsSolutions-APIG4',
      'Answers 405 Method Not Allowed from a mock integration: it reaches no function and no data, so there is nothing to authorize.',
    );
    acknowledge(cfnOf(anyMethod), 'AwsSolutions-COG4', 'Answers 405 Method Not Allowed from a mock integration; see the AwsSolutions-APIG4 reason.');
  }
}

/** OPTIONS on the paths of `preflightHandlers`, a Lambda proxy to the route's own function. */
export function addPreflights(
  restApi: apigateway.RestApi,
  routes: readonly RouteDefinition[],
  handlers: Readonly<Record<string, lambda.IFunction>>,
  preflightHandlers: readonly string[],
): void {
  for (const handlerName of preflightHandlers) {
    const route = routes.find((candidate) => candidate.name === handlerName);
    const handler = handlers[handlerName];
    if (route === undefined || handler === undefined) {
      throw new Error(`Preflight handler "${handlerName}" serves no route`);
    }
    // The handler answers the preflight (which origins, methods and headers
    // are granted); a mock integration would answer it differently.
    const preflight = restApi.root
      .resourceForPath(route.path)
      .addMethod('OPTIONS', new apigateway.LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }), {
        operationName: `${handlerName}-preflight`,
      });
    // AwsSolutions-COG4 does not apply to OPTIONS methods; APIG4 exempts
    // only mock-style CORS methods (204 method responses with
    // Access-Control-Allow-* headers), so it is raised here.
    acknowledge(
      cfnOf(preflight),
      'AwsSolutions-APIG4',
      `CORS preflight of ${route.path}: browsers send a preflight without credentials (no Authorization header, no key), so any authorizer would refuse every preflight and break browser use of public keys. The function answers it from the request headers alone (no key, no table access, no use recorded); the ${route.method} that follows is authenticated.`,
    );
  }
}
