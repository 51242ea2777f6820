/**
 * Dependencies of the handlers, built once per process from the environment.
 * Tests and the local runtime may replace the clock (`useClock`) to move time
 * without sleeping; nothing else is swappable.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';
import { dynamo } from './dynamo';
import { systemClock, type Clock } from './clock';

export interface RuntimeDeps {
  db: DynamoDBDocumentClient;
  keyTableName: string;
  auditTableName: string;
  clock: Clock;
  pepper?: string;
  planRateLimit: number;
}

let clock: Clock = systemClock;

/** What verification needs: the key table only (the verify and authorizer functions have no audit table). */
export interface VerificationDeps {
  db: DynamoDBDocumentClient;
  keyTableName: string;
  clock: Clock;
  pepper?: string;
}

export function verificationDeps(): VerificationDeps {
  return { db: dynamo(), keyTableName: config.keyTableName, clock, pepper: config.hashPepper };
}

/** Everything the management services need. */
export function runtimeDeps(): RuntimeDeps {
  return {
    db: dynamo(),
    keyTableName: config.keyTableName,
    auditTableName: config.auditTableName,
    clock,
    pepper: config.hashPepper,
    planRateLimit: config.planRateLimit,
  };
}

/** Replaces the clock every handler uses (tests, local runtime). */
export function useClock(next: Clock): void {
  clock = next;
}
