import { Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * Checks on settings that synthesize but would fail (or quietly not work)
 * at deploy time: docs/deploy.md, "Traps outside the defaults".
 */

/** The Region of an ARN (`arn:<partition>:<service>:<region>:…`). */
export function regionOfArn(arn: string): string {
  return arn.split(':')[3] ?? '';
}

/**
 * `setting` names a resource that must be in the stack's own Region (a
 * CloudWatch alarm action, a REGIONAL web ACL, the secret the functions'
 * client reads in their Region). Refused at synthesis when the stack's Region
 * is known; otherwise a template rule makes CloudFormation refuse the
 * deploy before it creates anything.
 */
export function requireStackRegion(scope: Construct, setting: string, arn: string, what: string): void {
  const stack = Stack.of(scope);
  const region = regionOfArn(arn);
  const message = `${setting} must be in the same Region as the stack (${what}): it names ${region}`;
  if (!Token.isUnresolved(stack.region)) {
    if (stack.region !== region) throw new Error(`Invalid CDK context for the API key service:\n  - ${message}, the stack deploys to ${stack.region}`);
    return;
  }
  new CfnRule(stack, `${setting[0]!.toUpperCase()}${setting.slice(1)}InStackRegion`, {
    assertions: [
      { assert: Fn.conditionEquals(Aws.REGION, region), assertDescription: `${message}; deploy the stack to ${region} or give a ${setting} there.` },
    ],
  });
}

/**
 * A Secrets Manager ARN is complete only with the 6 characters Secrets
 * Manager appends to the name (`…:secret:api-key-pepper-AbCdEf`); IAM
 * matches the complete ARN. Refuses an ARN that cannot be complete.
 */
export function requireCompleteSecretArn(setting: string, arn: string): void {
  if (!/-[A-Za-z0-9]{6}$/.test(arn)) {
    throw new Error(
      `Invalid CDK context for the API key service:\n  - ${setting} must be the complete secret ARN, ending in the 6-character suffix Secrets Manager adds ("…:secret:api-key-pepper-AbCdEf"), got "${arn}": copy it from \`aws secretsmanager describe-secret --secret-id <name> --query ARN --output text\``,
    );
  }
}
