import { claimDataDir } from '../data-dir-claim';
import { type LocalRuntimePart } from './part';

/** Only one process may open a data directory's DynamoDB store: `<DATA_DIR>/runtime.json`. */
export const dataDirPart: LocalRuntimePart = {
  name: 'data directory',
  async start(context) {
    const claim = claimDataDir(context.settings.dataDir, 'start');
    context.dataDirClaim = claim;
    return () => claim.release();
  },
};
