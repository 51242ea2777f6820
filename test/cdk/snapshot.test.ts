/**
 * One snapshot of the whole template, so any change to the infrastructure
 * shows up in review. Asset hashes (bundled handler code) are scrubbed: a
 * handler change is not an infrastructure change.
 */
import { synthesizeService } from './service';

/** Replaces every 64-hex-digit asset hash (S3 keys, asset ids) with a placeholder. */
function scrubAssetHashes(template: unknown): unknown {
  return JSON.parse(JSON.stringify(template).replace(/[0-9a-f]{64}/g, '[asset-hash]'));
}

test('the synthesized template matches the snapshot (asset hashes scrubbed)', () => {
  // Act
  const { template } = synthesizeService();

  // Assess
  expect(scrubAssetHashes(template.toJSON())).toMatchSnapshot();
});
