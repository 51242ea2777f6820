/**
 * `ApiError` is an expected answer (a 4xx, a 503), thrown on paths that
 * hostile traffic can drive at full speed: it captures no stack trace,
 * and it leaves the process's own stack traces as they were.
 */
import { ApiError, ErrorCode, STATUS_BY_CODE } from '../../lambda/contract/errors';

const frames = (stack: string | undefined) => (stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));

describe('ApiError', () => {
  const saved = Error.stackTraceLimit;
  afterEach(() => {
    Error.stackTraceLimit = saved;
  });

  it('carries its code, status, message, details and headers, without stack frames', () => {
    // Prepare
    const details = [{ field: 'key_id', issue: 'not found: 01ARZ3NDEKTSV4RRFFQ69G5FAV' }];

    // Act
    const error = new ApiError(ErrorCode.NOT_FOUND, 'No key with this id exists in the calling key’s team.', details, { 'X-Extra': '1' });

    // Assess
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'ApiError',
      code: ErrorCode.NOT_FOUND,
      status: STATUS_BY_CODE[ErrorCode.NOT_FOUND],
      details,
      headers: { 'X-Extra': '1' },
    });
    expect(error.message).toBe('No key with this id exists in the calling key’s team.');
    expect(frames(error.stack)).toEqual([]);
  });

  it('leaves Error.stackTraceLimit as it found it, so other errors keep their frames', () => {
    // Prepare
    Error.stackTraceLimit = 17;

    // Act
    new ApiError(ErrorCode.UNAUTHORIZED, 'The API key is missing or invalid.');
    const fault = new Error('unexpected');

    // Assess
    expect(Error.stackTraceLimit).toBe(17);
    expect(frames(fault.stack).length).toBeGreaterThan(0);
  });
});
