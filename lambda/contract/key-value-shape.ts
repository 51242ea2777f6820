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

/**
 * Either value shape, unanchored: for finding values inside other text (pass
 * flags such as `g`). `separator`: a pattern for what joins the parts
 * (default `_`, as issued; redaction also looks for other joiners).
 */
export function keyValuePattern(flags = '', separator = '_'): RegExp {
  const s = `(?:${separator})`;
  return new RegExp(
    `(?:svc${s}(?:pk|sk)${s}(?:test|live)${s}[0-9a-f]{8}|(?:pk|sk)${s}(?:test|live)${s}[0-9A-HJKMNP-TV-Z]{26})${s}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`,
    flags,
  );
}
