/**
 * What runs at the key console's edge: the CloudFront functions (the
 * console's paths, the viewer's address for the API) and the Regions where
 * CloudFront cannot deliver standard logs to a bucket, with the condition
 * built over them.
 */
import { Fn, type ICfnConditionExpression } from 'aws-cdk-lib';

/**
 * The console's paths: `/` and `/console` redirect (308) to `/console/`, so
 * the page's relative `app.js` and `app.css` resolve inside `console/` (served
 * at `/` they would resolve to `/app.js`, outside the bucket's prefix: a blank
 * page); `/console/` is the page; every other path is a file. The local
 * server answers the same (local/pages.ts).
 */
export const CONSOLE_PATHS_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '/console') {
    return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '/console/' }, 'cache-control': { value: 'no-store' } } };
  }
  if (request.uri === '/console/') {
    request.uri = '/console/index.html';
  }
  return request;
}`;

/**
 * The API's paths through the console's distribution: the viewer's address
 * in `X-Viewer-Address` (replacing any the viewer sent), which the functions
 * trust only beside the distribution's `X-Origin-Verify` secret
 * (lambda/http/source-address.ts).
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['x-viewer-address'] = { value: event.viewer.ip };
  return request;
}`;

/**
 * Regions where CloudFront does not deliver standard logs to an S3 bucket
 * (CloudFront Developer Guide, "Standard logging (legacy)": bucket Regions
 * not supported). A distribution with bucket logging cannot be created with
 * its log bucket there, so the stack leaves logging off in these Regions.
 */
export const NO_CLOUDFRONT_BUCKET_LOGS_REGIONS = [
  'af-south-1',
  'ap-east-1',
  'ap-south-2',
  'ap-southeast-3',
  'ap-southeast-4',
  'ap-southeast-5',
  'ap-southeast-7',
  'ca-west-1',
  'eu-central-2',
  'eu-south-1',
  'eu-south-2',
  'il-central-1',
  'me-central-1',
  'me-south-1',
  'mx-central-1',
] as const;

/** `Fn::Or` over any number of conditions (CloudFormation takes 2 to 10 per Fn::Or). */
export function anyOf(conditions: ICfnConditionExpression[]): ICfnConditionExpression {
  if (conditions.length === 1) return conditions[0]!;
  if (conditions.length <= 10) return Fn.conditionOr(...conditions);
  return Fn.conditionOr(anyOf(conditions.slice(0, 9)), anyOf(conditions.slice(9)));
}
