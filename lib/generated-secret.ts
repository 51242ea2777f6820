import { RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { acknowledge, cfnOf } from './nag';

export interface GeneratedSecretProps {
  /** What the secret is for (its description in Secrets Manager). Required. */
  readonly description: string;
  /** Characters of the generated value (letters and digits). Required. */
  readonly length: number;
  /** Why it is not rotated by Secrets Manager, and how it is replaced (the cdk-nag AwsSolutions-SMG4 reason). Required. */
  readonly rotation: string;
}

/**
 * A secret whose value CloudFormation generates at the first deploy and that
 * the stack hands to its users at deploy (a dynamic reference): the value is
 * never in the repository or the template. Deleted with the stack.
 */
export function generatedSecret(scope: Construct, id: string, props: GeneratedSecretProps): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, id, {
    description: props.description,
    generateSecretString: { passwordLength: props.length, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  acknowledge(cfnOf(secret), 'AwsSolutions-SMG4', props.rotation);
  return secret;
}
