/**
 * The requests the webhook and expiry code sends to the AWS services that
 * have no local engine (SQS, EventBridge Scheduler, EventBridge, KMS),
 * asserted exactly, through clients whose `send` records the command.
 */
import type { DeliveryJob } from '../../lambda/domain/webhook-endpoints';
import { busEntryOf, eventBridgePublisher } from '../../lambda/adapters/event-bus-eventbridge';
import { createEventBridgeExpiryScheduler, expiryScheduleInput } from '../../lambda/adapters/expiry-scheduler-eventbridge';
import { kmsSecretBox } from '../../lambda/adapters/secret-box-kms';
import { sendMessageInput, sqsDeliveryQueue } from '../../lambda/adapters/webhook-queue-sqs';
import { retryScheduleInput, scheduledRetries } from '../../lambda/adapters/webhook-retry-schedules';

/** A client whose `send` records each command's name and input, answering `answer`. */
function recording(answer: (name: string) => unknown = () => ({})) {
  const sent: Array<{ command: string; input: unknown }> = [];
  return {
    sent,
    client: {
      send: async (command: { constructor: { name: string }; input: unknown }) => (
        sent.push({ command: command.constructor.name, input: command.input }),
        answer(command.constructor.name)
      ),
    },
  };
}

const JOB: DeliveryJob = { event_id: 'msg_01JDQ4W1V8T6Y3M2K9P0RS5XYZ', endpoint_id: '01JDQ4W1V8T6Y3M2K9P0RS5XZZ', attempt: 3 };
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks';

describe('webhook retries', () => {
  it('up to 15 minutes ahead: one SendMessage with that delay, the job as body, grouped by its endpoint (the fair-queue tenant)', async () => {
    const sqs = recording();
    await sqsDeliveryQueue({ queueUrl: QUEUE_URL }, { sqs: sqs.client as never }).later(JOB, 300);
    expect(sqs.sent).toEqual([
      {
        command: 'SendMessageCommand',
        input: { QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ webhook_job: JOB }), DelaySeconds: 300, MessageGroupId: JOB.endpoint_id },
      },
    ]);
    expect(sendMessageInput(QUEUE_URL, JOB, 0).DelaySeconds).toBe(0);
  });

  it('past 15 minutes: a one-shot schedule in the group that sends the same body to the queue at its time, deleted after', async () => {
    const scheduler = recording();
    const settings = {
      queueArn: 'arn:aws:sqs:eu-west-1:123456789012:webhooks',
      groupName: 'group-1',
      schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
    };
    const now = new Date('2026-11-26T12:00:00.000Z');
    const queue = sqsDeliveryQueue(
      { queueUrl: QUEUE_URL },
      { sqs: recording().client as never, later: scheduledRetries(settings, scheduler.client as never, () => now) },
    );
    await queue.later(JOB, 7200);
    const expected = retryScheduleInput(settings, JOB, new Date('2026-11-26T14:00:00.000Z'));
    expect(scheduler.sent).toEqual([{ command: 'CreateScheduleCommand', input: expected }]);
    expect(expected).toEqual({
      Name: expect.stringMatching(/^webhook-[0-9a-f]{40}$/),
      GroupName: 'group-1',
      ScheduleExpression: 'at(2026-11-26T14:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Description: `Webhook retry: attempt 3 of ${JOB.event_id}`,
      Target: {
        Arn: settings.queueArn,
        RoleArn: settings.schedulerRoleArn,
        Input: JSON.stringify({ webhook_job: JOB }),
        RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 86_400 },
      },
      ClientToken: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('a route that may only queue at once refuses a wait past 15 minutes instead of dropping it', async () => {
    await expect(sqsDeliveryQueue({ queueUrl: QUEUE_URL }, { sqs: recording().client as never }).later(JOB, 1800)).rejects.toThrow(
      'cannot queue a delivery 1800 s ahead',
    );
  });
});

describe('expiry notices', () => {
  const settings = {
    groupName: 'group-1',
    functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:notify',
    schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
    deadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:rotation-dlq',
  };
  const request = { key_id: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ', expires_at: '2026-12-10T00:00:00.000Z', notice: '7d' as const };

  it('one schedule per notice, at its time, invoking the notify function with the request; disarm deletes the three', async () => {
    const scheduler = recording();
    const expiry = createEventBridgeExpiryScheduler(scheduler.client as never, settings);
    await expiry.arm([request]);
    await expiry.disarm(request.key_id, request.expires_at);
    expect(scheduler.sent[0]).toEqual({ command: 'CreateScheduleCommand', input: expiryScheduleInput(settings, request) });
    expect(expiryScheduleInput(settings, request)).toEqual(
      expect.objectContaining({
        Name: `keyexp-${request.key_id}-7d-1796860800`,
        ScheduleExpression: 'at(2026-12-03T00:00:00)',
        ActionAfterCompletion: 'DELETE',
        Target: expect.objectContaining({ Arn: settings.functionArn, Input: JSON.stringify(request), DeadLetterConfig: { Arn: settings.deadLetterQueueArn } }),
      }),
    );
    expect(scheduler.sent.slice(1)).toEqual(
      ['7d', '1d', 'expired'].map((notice) => ({
        command: 'DeleteScheduleCommand',
        input: { GroupName: 'group-1', Name: `keyexp-${request.key_id}-${notice}-1796860800` },
      })),
    );
  });
});

describe('the bus and KMS', () => {
  it('each event is one PutEvents entry: the bus, source api-key-service, the detail-type, the event as detail', async () => {
    const events = recording(() => ({ FailedEntryCount: 0 }));
    const event = {
      id: 'msg_1',
      type: 'key.created' as const,
      timestamp: '2026-11-26T12:00:00.000Z',
      team_id: 't',
      data: { team_id: 't', endpoint_id: 'e', message: 'm' },
    };
    await eventBridgePublisher('bus-1', events.client as never)([event]);
    expect(events.sent).toEqual([{ command: 'PutEventsCommand', input: { Entries: [busEntryOf('bus-1', event)] } }]);
    expect(busEntryOf('bus-1', event)).toEqual({
      EventBusName: 'bus-1',
      Source: 'api-key-service',
      DetailType: 'API key lifecycle event',
      Detail: JSON.stringify(event),
      Time: new Date('2026-11-26T12:00:00.000Z'),
    });
    await expect(eventBridgePublisher('bus-1', recording(() => ({ FailedEntryCount: 1 })).client as never)([event])).rejects.toThrow('1 event(s) not put');
  });

  it('a secret is encrypted and decrypted with the stack key and the endpoint id as encryption context', async () => {
    const kms = recording((name) => (name === 'EncryptCommand' ? { CiphertextBlob: Buffer.from('sealed') } : { Plaintext: Buffer.from('whsec_c2VjcmV0') }));
    const box = kmsSecretBox(kms.client as never, 'arn:aws:kms:eu-west-1:123456789012:key/k');
    const sealed = await box.seal('whsec_c2VjcmV0', 'E1');
    const opened = await box.open(sealed, 'E1');
    expect([sealed, opened]).toEqual([`kms:${Buffer.from('sealed').toString('base64')}`, 'whsec_c2VjcmV0']);
    expect(kms.sent).toEqual([
      {
        command: 'EncryptCommand',
        input: { KeyId: 'arn:aws:kms:eu-west-1:123456789012:key/k', Plaintext: Buffer.from('whsec_c2VjcmV0'), EncryptionContext: { endpoint_id: 'E1' } },
      },
      {
        command: 'DecryptCommand',
        input: { KeyId: 'arn:aws:kms:eu-west-1:123456789012:key/k', CiphertextBlob: Buffer.from('sealed'), EncryptionContext: { endpoint_id: 'E1' } },
      },
    ]);
  });
});
