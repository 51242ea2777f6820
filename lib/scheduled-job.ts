import type { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { acknowledge, cfnOf } from './nag';

/**
 * A job a schedule rule invokes every `every`, never retried: each such job
 * (the analytics rollup, the unused-key policies, the audit checkpoints)
 * leaves its unfinished work in the table for its next run, so neither the
 * function nor the rule has anything to park in a dead-letter queue;
 * `nextRunCovers` says why, for cdk-nag.
 */
export function runOnSchedule(
  scope: Construct,
  id: string,
  fn: lambda.IFunction,
  options: { readonly description: string; readonly every: Duration; readonly nextRunCovers: string },
): events.Rule {
  const rule = new events.Rule(scope, id, {
    description: options.description,
    schedule: events.Schedule.rate(options.every),
    targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
  });
  acknowledge(cfnOf(fn), 'Serverless-LambdaDLQ', options.nextRunCovers);
  acknowledge(cfnOf(rule), 'Serverless-EventBusDLQ', options.nextRunCovers);
  return rule;
}
