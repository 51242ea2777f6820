import { RemovalPolicy } from 'aws-cdk-lib';

/**
 * What a stateful resource or log group does when its stack is deleted: kept
 * in production (the `production` setting, lib/config.ts), destroyed
 * elsewhere, so a development stack leaves nothing behind.
 */
export function removalPolicyFor(production: boolean | undefined): RemovalPolicy {
  return production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
}
