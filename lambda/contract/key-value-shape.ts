/**
 * The shape of an issued key value, as text (docs/key-format.md): what the
 * domain generates and checks (lambda/domain/key-values.ts), and what
 * redaction finds inside log lines and archived events. Here, below both,
 * so redaction needs nothing above the platform.
 */

/** Base62 characters drawn from `crypto.randomBytes` (about 131 bits). */
export const RANDOM_LENGTH = 22;
/** Base62 CRC-32 of everything before it. */
export const CHECKSUM_LENGTH = 6;

/** Either value shape, unanchored: for finding values inside other text (pass flags such as `g`). */
export function keyValuePattern(flags = ''): RegExp {
  return new RegExp(
    `(?:svc_(?:pk|sk)_(?:test|live)_[0-9a-f]{8}|(?:pk|sk)_(?:test|live)_[0-9A-HJKMNP-TV-Z]{26})_[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`,
    flags,
  );
}
