/**
 * Settings that synthesize but would break a real deploy (docs/deploy.md,
 * "Traps outside the defaults"): ARNs in another Region than the stack's,
 * and a pepper secret ARN IAM would never match.
 */
import { App, Stack } from 'aws-cdk-lib';
import { requireStackRegion } from '../../lib/deploy-guards';
import { logicalIdOf, statementsOfFunction, synthesizeService } from './service';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:oncall';
const WEB_ACL = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/platform/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const SHORT_PEPPER = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper';

describe('resources in the stack’s Region', () => {
  it('an environment-agnostic stack carries a rule per ARN: CloudFormation refuses a deploy to another Region before creating anything', () => {
    const { template } = synthesizeService({ alarmTopicArn: TOPIC, webAclArn: WEB_ACL, keyHashPepperSecretArn: `${SHORT_PEPPER}-AbCdEf` });
    const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }>;
    for (const setting of ['AlarmTopicArn', 'WebAclArn', 'KeyHashPepperSecretArn']) {
      expect(rules[`${setting}InStackRegion`]?.Assertions).toEqual([
        {
          Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] },
          AssertDescription: expect.stringContaining('must be in the same Region as the stack'),
        },
      ]);
    }
  }, 120_000);

  it('a stack whose Region is known refuses an ARN of another Region at synthesis, and accepts its own', () => {
    const app = new App();
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
  it('a name ending in a six-character part ("api-key-pepper") is granted as given and with the suffix IAM matches', () => {
    const service = synthesizeService({ keyHashPepperSecretArn: SHORT_PEPPER });
    const verify = logicalIdOf(service.stack.handlers.byRoute['verify-api-key']);
    const resources = statementsOfFunction(service.template, verify)
      .filter((statement) => JSON.stringify(statement.Action).includes('secretsmanager:GetSecretValue'))
      .map((statement) => statement.Resource);
    expect(resources).toEqual([[SHORT_PEPPER, `${SHORT_PEPPER}-??????`]]);
  }, 120_000);

  it('an ARN that cannot be complete is refused with where to copy the complete one', () => {
    expect(() => synthesizeService({ keyHashPepperSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:apikeys/pepper' })).toThrow(
      /keyHashPepperSecretArn must be the complete secret ARN, ending in the 6-character suffix.*aws secretsmanager describe-secret/s,
    );
  }, 120_000);
});
