/**
 * X-Ray tracing through Powertools Tracer (stack context `tracer=true`; off
 * by default to keep the X-Ray SDK out of every cold start, while Lambda's
 * active tracing still records each invocation): on only where Lambda runs the
 * function with active tracing (Powertools turns itself off elsewhere, and
 * `POWERTOOLS_TRACE_ENABLED=false` turns it off in Lambda). The AWS SDK
 * clients are captured (`captureAWSv3Client`), the handler is a segment of
 * its own and every trace carries a `route` annotation (platform/observed.ts).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { DEFAULT_SERVICE_NAME } from '../contract/metrics';
import { optionalSetting } from './environment';

/**
 * The process's tracer in Lambda, or undefined where tracing is off (local
 * runtime, tests). The X-Ray SDK is loaded here, on first use in Lambda
 * only: the local runtime and the tests never evaluate it.
 */
export function environmentTracer(): Tracer | undefined {
  if (!optionalSetting('AWS_LAMBDA_FUNCTION_NAME')) return undefined;
  // The stack replaces TRACER_BUNDLE at bundling time (context `tracer`): with
  // "off", esbuild drops loadTracer and the X-Ray SDK (about 120 KB) from the bundle.
  return process.env.TRACER_BUNDLE === 'off' ? undefined : loadTracer();
}

function loadTracer(): Tracer | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Tracer } = require('@aws-lambda-powertools/tracer') as typeof import('@aws-lambda-powertools/tracer');
  const tracer = new Tracer({ serviceName: optionalSetting('POWERTOOLS_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME });
  return tracer.isTracingEnabled() ? tracer : undefined;
}
