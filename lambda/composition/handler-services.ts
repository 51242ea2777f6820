/** The ports of a function that is not a route, from its HANDLER_PORTS entry (its own module: no route's bundle carries the table). */
import { HANDLER_PORTS } from '../contract/ports';
import type { Wired } from '../store/ports';
import { functionServices } from './environment';
import type { Adapters } from './wiring';

/** `own`: adapters the function brings itself (composition/analytics-export-s3.ts for the rollup). */
export function handlerServices<N extends keyof typeof HANDLER_PORTS>(name: N, own: Adapters = {}): () => Wired<(typeof HANDLER_PORTS)[N]> {
  return functionServices({ ports: HANDLER_PORTS[name] }, own);
}
