/**
 * Integration files only, after env.ts: this test file's own pair of tables
 * in the run's DynamoDB Local (created and swept by file-tables.ts). A file
 * then scans, queries and counts only what it wrote itself, and a scan costs
 * what the file stored rather than everything the run stored before it.
 */
import { randomBytes } from 'node:crypto';

const file = randomBytes(6).toString('hex');
process.env.KEY_TABLE_NAME = `test-api-keys-${file}`;
process.env.AUDIT_TABLE_NAME = `test-api-key-audit-${file}`;
