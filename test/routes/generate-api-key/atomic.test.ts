import { testObservability, testServices } from '../../support/services';
import { randomUUID } from 'node:crypto';
import { createKeyRecord } from '../../../lambda/use-cases/create-key';
import { config } from '../../../lambda/composition/config';
import { documentClient } from '../../../lambda/composition/dynamo';
import { createServices } from '../../../lambda/composition/services';
import { teamKeyCount, lookupItemOf } from '../../support/store';
import { recordIssuedValue } from '../../support/issued-values';
import { directKeyWrite } from '../../support/keys';

describe('creation is all or nothing', () => {
  it('when the audit record cannot be written, neither the key nor its lookup nor its usage exist', async () => {
    // Prepare: the audit write fails (its table does not exist), the key-table writes would succeed
    const teamId = randomUUID();
    const deps = createServices({
      db: documentClient(),
      clock: testServices().clock,
      settings: { ...config, auditTableName: 'no-such-audit-table' },
      observe: testObservability,
    });
    const { spec, actor } = directKeyWrite(teamId, randomUUID(), { name: 'Atomic', scopes: ['enc.tiles:read'], rate_limit: 10 });

    // Act
    const failed = await createKeyRecord(deps, spec, actor, 'api').then(
      (created) => {
        recordIssuedValue(created.key);
        return created;
      },
      (error: Error) => error,
    );

    // Assess
    expect(failed).toBeInstanceOf(Error);
    expect(await teamKeyCount(teamId)).toBe(0);

    // And the same spec with the real audit table writes all of it.
    const created = await createKeyRecord(testServices(), spec, actor, 'api');
    recordIssuedValue(created.key);
    expect(await teamKeyCount(teamId)).toBe(1);
    expect(await lookupItemOf(created.key)).toMatchObject({ key_id: created.id });
  });
});
