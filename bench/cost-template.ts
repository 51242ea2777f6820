/**
 * What `npm run cost` reads from the synthesized template (default context,
 * no bundling): each function's memory size, the share of its calls X-Ray
 * traces, its log level and DEBUG sampling rate. Prints one JSON object.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { ROUTES } from '../lambda/routes';
import { createServiceApp } from '../lib/service-app';

/** Lambda's default X-Ray sampling for a function with active tracing, at volume (the first request each second aside). */
export const LAMBDA_DEFAULT_TRACE_RATE = 0.05;

export interface FunctionFacts {
  memoryMb: number;
  traceRate: number;
  tracing: string;
  logLevel: string;
  debugSampleRate: number;
}

function main(): void {
  const context = (JSON.parse(readFileSync(path.resolve(__dirname, '..', 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
  // Its own assembly folder, removed after: an app given none leaves a new one in the OS temp folder.
  const outdir = mkdtempSync(path.join(tmpdir(), 'cost-template-'));
  const { stack } = createServiceApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir });
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  const rule = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::XRay::SamplingRule');
  const stageTraceRate = Number((rule?.Properties.SamplingRule as { FixedRate?: number } | undefined)?.FixedRate ?? LAMBDA_DEFAULT_TRACE_RATE);
  const facts = (fn: { node: { defaultChild?: unknown } }): FunctionFacts => {
    const id = stack.resolve((fn.node.defaultChild as CfnFunction).logicalId) as string;
    const props = template.Resources[id]?.Properties as {
      MemorySize: number;
      TracingConfig?: { Mode: string };
      Environment: { Variables: Record<string, string> };
    };
    const tracing = props.TracingConfig?.Mode ?? 'PassThrough';
    return {
      memoryMb: props.MemorySize,
      tracing,
      // PassThrough: traced when the caller sampled (this API's rule; for the authorizer, the platform API's, taken as the same).
      traceRate: tracing === 'PassThrough' ? stageTraceRate : LAMBDA_DEFAULT_TRACE_RATE,
      logLevel: props.Environment.Variables.POWERTOOLS_LOG_LEVEL ?? 'INFO',
      debugSampleRate: Number(props.Environment.Variables.POWERTOOLS_LOGGER_SAMPLE_RATE ?? 0),
    };
  };
  const functions: Record<string, FunctionFacts> = {
    'platform-authorizer': facts(stack.handlers.authorizer),
    'management-authorizer': facts(stack.handlers.managementAuthorizer),
  };
  for (const route of ROUTES) functions[route.name] = facts(stack.handlers.byRoute[route.name]);
  rmSync(outdir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ functions, stageTraceRate })}\n`);
}

if (require.main === module) main();
