import { Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, type NagPack, ServerlessChecks } from 'cdk-nag';
// The same flattening cdk-nag applies to a policy resource before naming an
// IAM5 finding (`AwsSolutions-IAM5[Resource::<Bucket.Arn>/audit/*]`).
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { Construct, type IConstruct } from 'constructs';

/**
 * Registers the cdk-nag packs (AwsSolutions and Serverless) as policy
 * validation plugins: they run on every synthesis, and an unacknowledged
 * error-level finding fails it.
 */
export function addNagPacks(app: IConstruct): NagPack[] {
  const packs: NagPack[] = [
    // Also writes every acknowledgement into its resource's template Metadata
    // (`cdk_nag.rules_to_suppress`): an audit trail that survives synthesis.
    // One pack doing so is enough; the aspect copies all acknowledgements.
    new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(app),
  ];
  Validations.of(app).addPlugins(...packs);
  return packs;
}

/**
 * Acknowledges one cdk-nag finding on `scope` and everything below it. Pass
 * the CloudFormation resource the finding is reported on (an L2's
 * `node.defaultChild`), so the acknowledgement covers nothing else. The id
 * is the pack's rule id (`AwsSolutions-APIG2`), with the finding in brackets
 * for rules that report several (`AwsSolutions-IAM5[Resource::*]`). The
 * reason is written into the policy-validation report and docs/deploy.md.
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** The IAM5 finding id cdk-nag reports for a wildcard resource in a policy statement. */
export function wildcardResourceFinding(scope: IConstruct, resourceArn: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resourceArn))}]`;
}

/**
 * Acknowledges the IAM5 finding of one wildcard resource granted to
 * `grantee`, on the grantee's role (where the policy lives), and nowhere else.
 */
export function acknowledgeWildcardResource(grantee: iam.IGrantable, resourceArn: string, reason: string): void {
  const principal: unknown = grantee.grantPrincipal;
  if (!Construct.isConstruct(principal)) {
    throw new Error('Cannot acknowledge a finding on a principal that is not a construct');
  }
  acknowledge(policyOf(principal), wildcardResourceFinding(principal, resourceArn), reason);
}

/** The role's default policy (where grants land), or the role itself before its first grant. */
export function policyOf(role: IConstruct): IConstruct {
  return role.node.tryFindChild('DefaultPolicy')?.node.defaultChild ?? role;
}

/** The CloudFormation resource of an L2 construct, where cdk-nag reports its findings. */
export function cfnOf(construct: IConstruct): IConstruct {
  return construct.node.defaultChild ?? construct;
}
