/**
 * Each function is wired with exactly the ports it declares (its route.ts's
 * `ports`, HANDLER_PORTS for the others; lambda/contract/ports.ts):
 * composition builds those and no other, a view of the local runtime's
 * services shows those and no other, and a bundle built the way the stack
 * builds it carries no code of a port it was not given.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { portBundleFlag } from '../../lambda/contract/ports';
import { PORT_NAMES } from '../../lambda/contract/port-names';
import { ROUTES, FUNCTION_OPERATIONS, FUNCTION_PORTS, functionEntry } from '../../lambda/routes';
import { wire } from '../../lambda/composition/wiring';
import { portsOf } from '../../lambda/composition/services';
import { documentClient } from '../../lambda/composition/dynamo';
import { config } from '../../lambda/composition/config';
import { absentOperationFlags, absentPortFlags } from '../../lib/house-function';
import { operationBundleFlag } from '../../lambda/contract/store-operations';
import { KEY_STORE_OPERATIONS } from '../../lambda/store/key-store';
import { testClock, testObservability, testServices } from '../support/services';

const ROOT = path.resolve(__dirname, '..', '..');
const source = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A function's bundle, built as the stack builds it, with `define`. */
async function bundleOf(name: string, define: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ports-'));
  try {
    const outfile = path.join(dir, 'index.js');
    await build({
      entryPoints: [functionEntry(name)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      minify: true,
      mainFields: ['module', 'main'],
      outfile,
      define,
      logLevel: 'error',
    });
    return readFileSync(outfile, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('ports', () => {
  it('every port has its builder behind its bundle flag, in composition', () => {
    // A function's own adapters live in a composition module only it imports (the rollup's export: analytics-export-s3.ts).
    const builders = ['wiring.ts', 'environment.ts', 'analytics-export-s3.ts'].map((file) => source(`lambda/composition/${file}`)).join('\n');
    const unflagged = PORT_NAMES.filter((name) => !builders.includes(`${portBundleFlag(name)} === 'absent'`));
    expect(unflagged).toEqual([]);
  });

  it('every function declares its ports, each a known one', () => {
    for (const [name, ports] of Object.entries(FUNCTION_PORTS)) {
      expect([name, ports.filter((port) => !PORT_NAMES.includes(port))]).toEqual([name, []]);
    }
    expect(Object.keys(FUNCTION_PORTS).sort()).toEqual(expect.arrayContaining(ROUTES.map((route) => route.name).sort()));
  });

  it('composition builds exactly the ports named, adapters on first use', () => {
    let built = 0;
    const wired = wire(['keys', 'audit', 'secrets'], {
      db: documentClient(),
      clock: testClock,
      settings: config,
      observe: testObservability,
      adapters: { secrets: () => (built++, { seal: async () => 'sealed', open: async () => 'opened' }) },
    });
    const present = PORT_NAMES.filter((name) => (wired as unknown as Record<string, unknown>)[name] !== undefined);
    expect(present).toEqual(['keys', 'audit', 'secrets']);
    expect(built).toBe(1);
    // The webhook adapters it was not given throw when a use case reaches for them.
    expect(() => wired.webhookPorts().queue).toThrow('this function has no webhook queue configured');
    expect(wired.webhookPorts().secrets).toBe((wired as unknown as Record<string, unknown>).secrets);
  });

  it('a route sees only its declared ports of the local runtime’s services', () => {
    const view = portsOf(testServices(), ['webhooks', 'policy']) as unknown as Record<string, unknown> & {
      webhookPorts(): { secrets: unknown; policy: unknown };
    };
    expect(PORT_NAMES.filter((name) => view[name] !== undefined)).toEqual(['webhooks', 'policy']);
    expect(view.webhookPorts().policy).toBeDefined();
    expect(() => view.webhookPorts().secrets).toThrow('this function has no webhook secret box configured');
  });

  // Markers that survive minification: the webhook store's cap on endpoints, and the KMS client's service name.
  const WEBHOOK_STORE = 'attribute_not_exists(endpoints) OR endpoints < :max';
  const KMS_CLIENT = 'TrentService';

  it('a bundle carries no store or AWS client of a port its function was not given', async () => {
    const flagged = await bundleOf('get-api-key', absentPortFlags('get-api-key'));
    const unflagged = await bundleOf('get-api-key', {});
    const webhooks = await bundleOf('create-webhook-endpoint', absentPortFlags('create-webhook-endpoint'));
    expect([flagged.includes(WEBHOOK_STORE), flagged.includes(KMS_CLIENT)]).toEqual([false, false]);
    // Without the flags every builder is live: the markers are the flags' doing.
    expect([unflagged.includes(WEBHOOK_STORE), unflagged.includes(KMS_CLIENT)]).toEqual([true, true]);
    expect([webhooks.includes(WEBHOOK_STORE), webhooks.includes(KMS_CLIENT)]).toEqual([true, true]);
    expect(flagged.length).toBeLessThan(unflagged.length);
  }, 60_000);
});

describe('storage operations in the bundles', () => {
  it('every key-store write is behind the bundle flag of its own declared operation', () => {
    const store = source('lambda/store/key-store.ts');
    const writes = ['createKey', 'rotateValue', 'expirePreviousValue', 'tombstoneKey', 'updateKey', 'recordLeak'] as const;
    const guarded = writes.filter((method) => {
      const body = store.slice(store.indexOf(`  async ${method}(`));
      const guard = `if (${operationBundleFlag(KEY_STORE_OPERATIONS[method])} === 'absent') return notBundled('${method}');`;
      return body.indexOf(guard) >= 0 && body.indexOf(guard) < body.indexOf('\n  }\n');
    });
    expect(guarded).toEqual(writes);
  });

  it('the stack defines the flag of every operation a function does not declare, and of none it declares', () => {
    const flags = absentOperationFlags('update-api-key');
    expect(flags[operationBundleFlag('rotateValue')]).toBe('"absent"');
    expect(flags[operationBundleFlag('tombstoneKey')]).toBe('"absent"');
    expect(FUNCTION_OPERATIONS['update-api-key'].filter((operation) => flags[operationBundleFlag(operation)] !== undefined)).toEqual([]);
    expect(absentOperationFlags('flush-authorizer-cache')[operationBundleFlag('updateKey')]).toBe('"absent"');
  });

  it('a bundle carries no item builder of an operation its function does not declare', async () => {
    // Markers that survive minification: the rotation's update of the old value's lookup, the tombstone's deletion reason.
    const ROTATION = 'SET slot = :previous, valid_until = :endsAt';
    const flagged = await bundleOf('update-api-key', { ...absentPortFlags('update-api-key'), ...absentOperationFlags('update-api-key') });
    const unflagged = await bundleOf('update-api-key', absentPortFlags('update-api-key'));
    const regenerate = await bundleOf('regenerate-api-key', { ...absentPortFlags('regenerate-api-key'), ...absentOperationFlags('regenerate-api-key') });
    expect([flagged.includes(ROTATION), unflagged.includes(ROTATION), regenerate.includes(ROTATION)]).toEqual([false, true, true]);
    expect(flagged.length).toBeLessThan(unflagged.length - 3_000);
  }, 60_000);

  it('a write whose operation is not bundled throws, naming it', async () => {
    const previous = process.env.OPERATION_ROTATE_VALUE_BUNDLE;
    process.env.OPERATION_ROTATE_VALUE_BUNDLE = 'absent';
    try {
      await expect(testServices().keys.rotateValue({} as never)).rejects.toThrow("rotateValue is not in this function's bundle");
    } finally {
      if (previous === undefined) delete process.env.OPERATION_ROTATE_VALUE_BUNDLE;
      else process.env.OPERATION_ROTATE_VALUE_BUNDLE = previous;
    }
  });
});
