/**
 * CDK's built-in template validation (CloudFormation's default rules, run by
 * cfn-guard) over the stack, its findings made errors. The other CDK tests
 * synthesize without it (it takes about 12 s a synthesis), so it runs here,
 * where a finding fails, for the defaults and for production with every
 * option on; `npm run synth` runs it too (findings as warnings).
 */
import { App, Stack } from 'aws-cdk-lib';
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import { synthesizeService, testOutdir } from './service';

const STRICT = { [VALIDATE_AGAINST_DEFAULT_RULES]: true };

describe('CloudFormation validation (CDK built-in rules, findings as errors)', () => {
  it.each([
    ['the defaults', {}],
    [
      'production, console, alarms and WAF, the longest stage name',
      {
        stage: 'a'.repeat(20),
        production: 'true',
        console: 'true',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
        webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/platform/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        keyHashPepperSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper-AbCdEf',
      },
    ],
  ])('%s: no finding', (_what, context) => {
    expect(() => synthesizeService({ ...context, ...STRICT }, { cloudFormationValidation: true })).not.toThrow();
  });

  it('the check can fail: a stack with a finding (no resources at all) stops synthesis, naming the rule', () => {
    const app = new App({ context: STRICT, outdir: testOutdir() });
    new Stack(app, 'Empty');
    expect(() => app.synth()).toThrow(/Resources section must exist and be non-empty/);
  });
});
