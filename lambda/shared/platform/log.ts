/**
 * Structured logs, one JSON object per line. Never pass a key value, a
 * hash, an Authorization header or a request body here.
 */
type Level = 'info' | 'warn' | 'error';

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.info(line);
}

export const log = {
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};

/** Loggable facts about an unexpected error: its class and message, with the stack. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error_name: error.name, error_message: error.message, stack: error.stack };
  return { error_name: typeof error };
}
