/**
 * Settings that synthesize but would break a real deploy (docs/deploy.md,
 * "Traps outside the defaults"): ARNs in another Region than the stack's,
 * and a pepper secret ARN IAM would never match.
 */
import { App, Stack } from 'aws-cdk-lib';
import { requireStackRegion } from '../../lib/deploy-guards';
import { synthesizeService, testOutdir } from './service';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:oncall';

describe('resources in the stack’s Region', () => {
  // An environment-agnostic stack's rule per ARN, and the pepper's suffixed grant: test/cdk/variants.test.ts (every variant).

  it('a stack whose Region is known refuses an ARN of another Region at synthesis, and accepts its own', () => {
    const app = new App({ outdir: testOutdir(), builtinCloudFormationValidation: false });
    const inUsEast = new Stack(app, 'InUsEast', { env: { account: '123456789012', region: 'us-east-1' } });
    expect(() => requireStackRegion(inUsEast, 'alarmTopicArn', TOPIC, 'CloudWatch alarms notify topics of their own Region only')).toThrow(
      'alarmTopicArn must be in the same Region as the stack (CloudWatch alarms notify topics of their own Region only): it names eu-west-1, the stack deploys to us-east-1',
    );
    const inEuWest = new Stack(app, 'InEuWest', { env: { account: '123456789012', region: 'eu-west-1' } });
    expect(() => requireStackRegion(inEuWest, 'alarmTopicArn', TOPIC, '…')).not.toThrow();
    expect(Object.keys(app.synth().getStackByName('InEuWest').template.Rules ?? {}).filter((rule) => rule.endsWith('InStackRegion'))).toEqual([]);
  });
});

describe('the pepper secret ARN', () => {
  it('an ARN that cannot be complete is refused with where to copy the complete one', () => {
    expect(() => synthesizeService({ keyHashPepperSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:apikeys/pepper' })).toThrow(
      /keyHashPepperSecretArn must be the complete secret ARN, ending in the 6-character suffix.*aws secretsmanager describe-secret/s,
    );
  }, 120_000);
});
