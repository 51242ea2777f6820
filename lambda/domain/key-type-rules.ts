import { KEYS_MANAGE } from '../contract/scopes';

/** What a key's type rules out, as the 400's issue (read after the field's name: "domains apply to …"); create and update both say it. */
export const KEY_TYPE_RULES = {
  manageOnPk: `must not include ${KEYS_MANAGE} on a public (pk) key (a pk value is shown to browsers)`,
  domainsOnSk: 'apply to public (pk) keys only (a secret key is not checked against an Origin)',
} as const;
