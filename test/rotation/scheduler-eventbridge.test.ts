/**
 * The EventBridge Scheduler adapter. Scheduler has no local engine, so its
 * client is mocked (aws-sdk-client-mock) and every test asserts the exact
 * request; the key table and audit table are DynamoDB Local as everywhere.
 */
import type { Context } from 'aws-lambda';
import { captured, servicesWith, useTestServices } from '../support/services';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ThrottlingException,
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  InternalServerException,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { MS_PER_DAY, type ManualClock } from '../../lambda/platform/clock';
import { eventBridgeRevocations as schedulerFromEnvironment } from '../../lambda/composition/environment';
import { createEventBridgeRevocationScheduler, EXPIRY_RETRY_POLICY, scheduleExpressionOf, scheduleNameOf } from '../../lambda/adapters/scheduler-eventbridge';
import { call, createKey, newTeam } from '../support/api';
import { checkValue, expectStatus, installManualClock, restoreSystemClock, storedKeyState } from '../support/keys';
import { auditRecordsOf } from '../support/store';

const ENVIRONMENT = {
  SCHEDULE_GROUP_NAME: 'api-keys-expiry',
  EXPIRE_FUNCTION_ARN: 'arn:aws:lambda:eu-west-1:111122223333:function:api-keys-expire-old-value',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::111122223333:role/api-keys-scheduler',
  SCHEDULER_DLQ_ARN: 'arn:aws:sqs:eu-west-1:111122223333:api-keys-expiry-dlq',
} as const;
const KEY_ID = '01HZX3V6Q8J9K2M4N5P7R8S9TA';

const scheduler = mockClient(SchedulerClient);
const saved: Record<string, string | undefined> = {};

function setEnvironment(): void {
  Object.assign(process.env, ENVIRONMENT);
}

function clearEnvironment(): void {
  for (const name of Object.keys(ENVIRONMENT)) delete process.env[name];
}

beforeAll(() => {
  for (const name of Object.keys(ENVIRONMENT)) saved[name] = process.env[name];
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  scheduler.restore();
});

beforeEach(() => {
  scheduler.reset();
  scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-1:111122223333:schedule/x/y' });
  scheduler.on(DeleteScheduleCommand).resolves({});
  setEnvironment();
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(() => {
  clearEnvironment();
  useTestServices({});
  restoreSystemClock();
  jest.restoreAllMocks();
});

/** Every request the mocked client received, as [command name, input]. */
function requests(): Array<[string, unknown]> {
  return scheduler.calls().map((call) => {
    const command = call.args[0] as { constructor: { name: string }; input: unknown };
    return [command.constructor.name, command.input];
  });
}

function createInputs(): unknown[] {
  return scheduler.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input);
}

function deleteInputs(): unknown[] {
  return scheduler.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input);
}

/** A Scheduler service error as the SDK raises it (its constructors want `Message` and `$metadata`). */
const schedulerError = <T>(Type: new (options: { message: string; Message: string; $metadata: object }) => T, message: string): T =>
  new Type({ message, Message: message, $metadata: {} });

describe('EventBridge adapter: requests', () => {
  it('schedule sends exactly one CreateSchedule: name, group, at() in UTC rounded up, no window, delete after, target', async () => {
    // Prepare
    const adapter = createEventBridgeRevocationScheduler();

    // Act
    await adapter.schedule({ keyId: KEY_ID, generation: 2, at: '2030-01-02T03:04:05.678Z' });

    // Assess
    expect(requests()).toEqual([
      [
        'CreateScheduleCommand',
        {
          Name: `expire-${KEY_ID}-g2`,
          GroupName: 'api-keys-expiry',
          ScheduleExpression: 'at(2030-01-02T03:04:06)',
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Description: `Ends the grace period of key ${KEY_ID}, generation 2`,
          Target: {
            Arn: ENVIRONMENT.EXPIRE_FUNCTION_ARN,
            RoleArn: ENVIRONMENT.SCHEDULER_ROLE_ARN,
            Input: JSON.stringify({ key_id: KEY_ID, generation: 2 }),
            RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 86400 },
            DeadLetterConfig: { Arn: ENVIRONMENT.SCHEDULER_DLQ_ARN },
          },
          ClientToken: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ],
    ]);
    expect(EXPIRY_RETRY_POLICY).toEqual({ MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 86400 });
    const input = JSON.parse((createInputs()[0] as { Target: { Input: string } }).Target.Input);
    expect(input).toEqual({ key_id: KEY_ID, generation: 2 });
  });

  it('the ClientToken is the same for the same transition and time, and differs for another time', async () => {
    // Prepare
    const adapter = createEventBridgeRevocationScheduler();

    // Act
    await adapter.schedule({ keyId: KEY_ID, generation: 3, at: '2030-01-02T03:04:05.100Z' });
    await adapter.schedule({ keyId: KEY_ID, generation: 3, at: '2030-01-02T03:04:05.900Z' }); // same whole second
    await adapter.schedule({ keyId: KEY_ID, generation: 3, at: '2030-01-02T03:04:07.000Z' });

    // Assess
    const tokens = (createInputs() as Array<{ ClientToken: string }>).map((input) => input.ClientToken);
    expect(tokens[0]).toBe(tokens[1]);
    expect(tokens[2]).not.toBe(tokens[0]);
  });

  it.each([
    ['2030-01-02T03:04:05.000Z', 'at(2030-01-02T03:04:05)'],
    ['2030-01-02T03:04:05.001Z', 'at(2030-01-02T03:04:06)'],
    ['2030-12-31T23:59:59.500Z', 'at(2031-01-01T00:00:00)'],
    ['2030-06-01T12:00:00.999+02:00', 'at(2030-06-01T10:00:01)'],
  ])('at %s is scheduled as %s (never before the end)', (at, expression) => {
    expect(scheduleExpressionOf(at)).toBe(expression);
  });

  it('names stay within Scheduler limits (<= 64 of [0-9a-zA-Z-_.])', () => {
    const name = scheduleNameOf({ keyId: KEY_ID, generation: 999_999_999 });
    expect(name).toMatch(/^[0-9a-zA-Z\-_.]{1,64}$/);
  });

  it('cancel sends exactly one DeleteSchedule for the transition', async () => {
    // Prepare
    const adapter = createEventBridgeRevocationScheduler();

    // Act
    await adapter.cancel({ keyId: KEY_ID, generation: 4 });

    // Assess
    expect(requests()).toEqual([['DeleteScheduleCommand', { Name: `expire-${KEY_ID}-g4`, GroupName: 'api-keys-expiry' }]]);
  });

  it('cancel ignores ResourceNotFoundException (already fired and deleted, or never created)', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).rejects(schedulerError(ResourceNotFoundException, 'Schedule not found'));
    const adapter = createEventBridgeRevocationScheduler();

    // Act
    const cancel = adapter.cancel({ keyId: KEY_ID, generation: 2 });

    // Assess
    await expect(cancel).resolves.toBeUndefined();
    expect(deleteInputs()).toHaveLength(1);
  });

  it('cancel reports any other failure', async () => {
    scheduler.on(DeleteScheduleCommand).rejects(schedulerError(ThrottlingException, 'Rate exceeded'));
    const adapter = createEventBridgeRevocationScheduler();
    await expect(adapter.cancel({ keyId: KEY_ID, generation: 2 })).rejects.toBeInstanceOf(ThrottlingException);
  });

  it('replaces a schedule of the same transition left by a failed attempt (ConflictException → delete, create)', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).rejectsOnce(schedulerError(ConflictException, 'Schedule already exists')).resolves({ ScheduleArn: 'arn' });
    const adapter = createEventBridgeRevocationScheduler();

    // Act
    await adapter.schedule({ keyId: KEY_ID, generation: 2, at: '2030-01-02T03:04:05Z' });

    // Assess
    const names = requests().map(([name]) => name);
    expect(names).toEqual(['CreateScheduleCommand', 'DeleteScheduleCommand', 'CreateScheduleCommand']);
    expect(createInputs()[1]).toEqual(createInputs()[0]);
    expect(deleteInputs()).toEqual([{ Name: `expire-${KEY_ID}-g2`, GroupName: 'api-keys-expiry' }]);
  });

  it.each(Object.keys(ENVIRONMENT))('a missing %s fails when the adapter is built, naming the variable', (name) => {
    delete process.env[name];
    expect(() => createEventBridgeRevocationScheduler()).toThrow(`Missing required environment variable ${name}`);
  });
});

describe('adapter selection (lambda/composition/environment.ts)', () => {
  it('none without SCHEDULE_GROUP_NAME; the EventBridge adapter with it', async () => {
    // No group: no scheduler at all.
    clearEnvironment();
    expect(schedulerFromEnvironment()).toBeUndefined();

    // Group set: the EventBridge adapter, which schedules through the client.
    setEnvironment();
    const chosen = schedulerFromEnvironment();
    expect(chosen).toBeDefined();
    await chosen?.schedule({ keyId: KEY_ID, generation: 2, at: '2030-01-02T03:04:05Z' });
    expect(createInputs()).toHaveLength(1);
  });
});

describe('EventBridge adapter behind the endpoints', () => {
  let clock: ManualClock;

  beforeEach(() => {
    // Milliseconds on the clock, so the rounding shows.
    clock = installManualClock(Math.floor(Date.now() / 1000) * 1000 + 250);
    // What the functions run with in AWS (SCHEDULE_GROUP_NAME is set): the EventBridge adapter.
    useTestServices({ scheduler: schedulerFromEnvironment() });
  });

  it('regenerate schedules the end of the grace period before answering 200', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 7 } });

    // Assess
    expectStatus(response, 200);
    const endsAt = response.body.key_info.transition_ends_at as string;
    expect(endsAt).toBe(new Date(clock.now().getTime() + 7 * MS_PER_DAY).toISOString());
    const wholeSecondAfter = new Date(Math.ceil(Date.parse(endsAt) / 1000) * 1000).toISOString().slice(0, 19);
    expect(createInputs()).toEqual([
      expect.objectContaining({
        Name: `expire-${target.id}-g2`,
        GroupName: ENVIRONMENT.SCHEDULE_GROUP_NAME,
        ScheduleExpression: `at(${wholeSecondAfter})`,
        ScheduleExpressionTimezone: 'UTC',
        Target: expect.objectContaining({ Input: JSON.stringify({ key_id: target.id, generation: 2 }) }),
      }),
    ]);
  });

  it('a use-driven grace: regenerate schedules its first check, and the expire function re-arms itself, its own ARN from the invocation', async () => {
    // Prepare: the expire function's environment has no EXPIRE_FUNCTION_ARN (it cannot name itself in CloudFormation).
    const team = await newTeam();
    const target = await createKey(team);
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_mode: 'until_idle', grace_minutes: 30 } });
    expectStatus(response, 200);
    const firstCheck = new Date(Math.ceil((clock.now().getTime() + 30 * 60_000) / 1000) * 1000).toISOString().slice(0, 19);
    expect(createInputs().map((input) => (input as { ScheduleExpression: string }).ScheduleExpression)).toEqual([`at(${firstCheck})`]);
    scheduler.resetHistory();
    delete process.env.EXPIRE_FUNCTION_ARN;
    const selfArn = 'arn:aws:lambda:eu-west-1:111122223333:function:ApiKeyService-ExpireFunction-X1';
    const { makeHandler } = await import('../../lambda/handlers/expire-old-value');
    clock.advance(30 * 60_000);

    // Act: the first check finds the new value unused: it looks again grace_minutes on.
    const expireFunction = servicesWith({ scheduler: schedulerFromEnvironment() });
    const outcome = await makeHandler(() => expireFunction)({ key_id: target.id, generation: 2 }, {
      awsRequestId: 'r1',
      invokedFunctionArn: selfArn,
    } as Context);

    // Assess
    const next = new Date(Math.ceil((clock.now().getTime() + 30 * 60_000) / 1000) * 1000).toISOString().slice(0, 19);
    expect(outcome).toEqual({ outcome: 'rearmed', next_check_at: new Date(clock.now().getTime() + 30 * 60_000).toISOString() });
    expect(requests()).toEqual([
      [
        'CreateScheduleCommand',
        expect.objectContaining({
          Name: `expire-${target.id}-g2`,
          ScheduleExpression: `at(${next})`,
          Target: expect.objectContaining({ Arn: selfArn, Input: JSON.stringify({ key_id: target.id, generation: 2 }) }),
        }),
      ],
    ]);
  });

  it('regenerate answers 503 and changes nothing when the schedule cannot be created', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    scheduler.on(CreateScheduleCommand).rejects(schedulerError(InternalServerException, 'Scheduler is down'));
    captured.clear();
    const before = await storedKeyState(target.id);
    const auditBefore = await auditRecordsOf(target.id);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 3 } });

    // Assess
    expect(response.status).toBe(503);
    expect(response.body.error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Could not schedule the end of the grace period; nothing was changed. Retry shortly.',
      details: [],
      request_id: expect.any(String),
    });
    expect(JSON.stringify(response.body)).not.toMatch(/Scheduler is down|InternalServerException|CreateSchedule/);
    expect(createInputs()).toHaveLength(1);
    const after = await storedKeyState(target.id);
    expect(after.key).toEqual(before.key);
    expect(after.lookups).toEqual(before.lookups);
    // The caller's own use is metered on the caller key, not on the target.
    expect(after.usage).toEqual(before.usage);
    expect(await auditRecordsOf(target.id)).toEqual(auditBefore);
    expect((await checkValue(target.key)).valid).toBe(true);
    expect(captured.lines).toContainEqual({ level: 'ERROR', json: expect.stringContaining('could not schedule the end of a grace period') });
  });

  it('regenerate with revoke_immediately creates no schedule', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 200);
    expect(requests()).toEqual([]);
  });

  it('delete during a transition cancels its schedule', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } }), 200);
    scheduler.resetHistory();

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(requests()).toEqual([['DeleteScheduleCommand', { Name: `expire-${target.id}-g2`, GroupName: ENVIRONMENT.SCHEDULE_GROUP_NAME }]]);
  });

  it('delete still deletes when cancelling the schedule fails (best effort)', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } });
    expectStatus(regenerated, 200);
    scheduler.on(DeleteScheduleCommand).rejects(schedulerError(InternalServerException, 'Scheduler is down'));
    captured.clear();

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(deleteInputs()).toHaveLength(1);
    const state = await storedKeyState(target.id);
    expect(state.key).toMatchObject({ state: 'deleted' });
    expect(state.lookups).toEqual([]);
    expect((await checkValue(target.key)).valid).toBe(false);
    expect((await checkValue(regenerated.body.new_key)).valid).toBe(false);
    expect(captured.lines).toContainEqual({ level: 'WARN', json: expect.stringContaining('could not cancel revocation schedule') });
  });

  it('delete of a key with no transition, or after its end, sends no DeleteSchedule', async () => {
    // Prepare
    const team = await newTeam();
    const plain = await createKey(team);
    const rotated = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: rotated.id, grace_period_days: 1 } }), 200);
    clock.advance(MS_PER_DAY + 1000);
    scheduler.resetHistory();

    // Act
    const first = await call('delete-api-key', { key: team.key, body: { key_id: plain.id, confirm_deletion: true } });
    const second = await call('delete-api-key', { key: team.key, body: { key_id: rotated.id, confirm_deletion: true } });

    // Assess
    expectStatus(first, 200);
    expectStatus(second, 200);
    expect(requests()).toEqual([]);
  });
});
