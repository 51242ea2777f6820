import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { KEY_TABLE } from '../lambda/contract/tables';
import { createServiceTable } from './table-definition';

export interface KeyStoreProps {
  /** Production: deletion protection on and the table retained when the stack is deleted. Default: false. */
  readonly production?: boolean;
}

/**
 * The single key table: key metadata and tombstones, value-hash lookups and
 * usage counters, on demand, with the team index and the TTL attribute from
 * `KEY_TABLE` in the shared schema module.
 */
export class KeyStore extends Construct {
  /** The key table. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: KeyStoreProps = {}) {
    super(scope, id);
    this.table = createServiceTable(this, 'Table', { definition: KEY_TABLE, production: props.production });
  }
}
