/**
 * `npm run bench`, section 1: cold start. Every Lambda bundle of a fresh
 * synthesis (cdk.out assets, default context) against a bundle that only
 * builds the DynamoDB document client, built with the same esbuild settings:
 * size, and module load time in fresh Node processes, interleaved round by round.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stackLikeBundle } from './bundle';
import { BUDGET, QUICK, ROOT, median, round, say } from './figures';

interface Bundle {
  name: string;
  file: string;
}

/**
 * The document-client-only bundle, built with the stack's esbuild settings (lib/house-function.ts). `sameChain`:
 * with the functions' credential chain too (lib/house-function.ts aliases the SDK's), so that the difference is
 * the service's own code and libraries only; without it, the baseline as issue 15 defines it (the SDK's chain).
 */
async function baselineBundle(dir: string, sameChain = false): Promise<Bundle> {
  const entry = path.join(dir, 'baseline.ts');
  writeFileSync(
    entry,
    [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      'const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));',
      'export const handler = async () => client.config.region;',
    ].join('\n'),
  );
  const file = await stackLikeBundle(entry, path.join(dir, sameChain ? 'baseline-same-chain' : 'baseline', 'index.js'), { sameChain });
  return { name: sameChain ? "baseline, functions' credential chain" : 'baseline (document client only)', file };
}

/** The stack's function bundles, from a fresh `cdk synth` with the default context (what `cdk deploy` uploads). */
function stackBundles(outdir: string): Bundle[] {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '--no-notices', '--quiet', '--output', outdir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const templateFile = readdirSync(outdir).find((name) => name.endsWith('.template.json'));
  if (!templateFile) throw new Error(`cdk synth wrote no template into ${outdir}`);
  const template = JSON.parse(readFileSync(path.join(outdir, templateFile), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties?: { Code?: { S3Key?: string }; Handler?: string } }>;
  };
  const bundles: Bundle[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const key = resource.Properties?.Code?.S3Key;
    if (resource.Type !== 'AWS::Lambda::Function' || !key) continue;
    const file = path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.js');
    try {
      statSync(file);
    } catch {
      continue; // CDK's own helper functions
    }
    bundles.push({ name: id.replace(/[0-9A-F]{8}$/, ''), file });
  }
  return bundles;
}

/** Milliseconds to load one bundle in a fresh Node process (the module init Lambda pays at a cold start). */
function loadTime(file: string): number {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6));`;
  const out = execFileSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  return Number(out);
}

export async function coldStart(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-cold-'));
  try {
    say('cold start: synthesizing the stack (bundles every function) …');
    const baseline = await baselineBundle(dir);
    const sameChain = await baselineBundle(dir, true);
    const bundles = stackBundles(path.join(dir, 'cdk.out'));
    const rounds = QUICK ? 7 : 25;
    const times = new Map<string, number[]>([baseline, sameChain, ...bundles].map((b) => [b.file, []] as [string, number[]]));
    for (let round = 0; round < rounds; round++) {
      // Interleaved: every round loads the baselines and each bundle once, in a rotating order.
      const order = [baseline, sameChain, ...bundles];
      const shift = round % order.length;
      for (const bundle of [...order.slice(shift), ...order.slice(0, shift)]) times.get(bundle.file)?.push(loadTime(bundle.file));
    }
    const baseSize = statSync(baseline.file).size;
    const baseInit = median(times.get(baseline.file) ?? []);
    const sameChainSize = statSync(sameChain.file).size;
    const sameChainInit = median(times.get(sameChain.file) ?? []);
    const rows = bundles.map((bundle) => {
      const size = statSync(bundle.file).size;
      const init = median(times.get(bundle.file) ?? []);
      // Off the request path (a stream, queue or schedule consumer: the archiver, the event publisher, the webhook deliverer, the
      // analytics rollup, which carries the S3 client and the Parquet writer, the audit checkpoints, which carry the KMS, S3 and
      // EventBridge clients): the consumers' budget.
      const archiver = /Archiver|WebhooksPublisher|WebhooksDeliverer|AnalyticsRollup|Checkpointer/.test(bundle.name);
      const extraBudget = archiver ? BUDGET.archiverExtraBytes : BUDGET.bundleExtraBytes;
      const ratioBudget = archiver ? BUDGET.archiverInitRatio : BUDGET.initRatio;
      return {
        function: bundle.name,
        bytes: size,
        extra_kb: round((size - baseSize) / 1024, 1),
        extra_budget_kb: extraBudget / 1024,
        // What the service's code and libraries weigh: over the baseline with the same credential chain (no budget).
        extra_kb_same_chain: round((size - sameChainSize) / 1024, 1),
        init_ms_p50: round(init),
        init_ratio: round(init / baseInit),
        init_ratio_budget: ratioBudget,
        init_ratio_same_chain: round(init / sameChainInit),
        within_budget: size - baseSize <= extraBudget && init / baseInit <= ratioBudget,
      };
    });
    return {
      rounds,
      baseline: { bytes: baseSize, init_ms_p50: round(baseInit) },
      baseline_same_chain: { bytes: sameChainSize, init_ms_p50: round(sameChainInit) },
      functions: rows,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
