/**
 * A route's fixture (lambda/routes/<route>/fixture.ts): one valid request,
 * what must exist before it, and for a list route its partitions. The smoke
 * test of every route (`smokeTest('<route>')` in test/routes/<route>/), the cursor
 * forgeries of every list route, the store-operations check and the cost
 * run (`npm run cost`) are all derived from it, so a new route is priced,
 * smoke-tested and (if it lists) attacked with forged cursors by writing
 * its fixture, with no branch added anywhere else.
 *
 * Dependency-free, and imported by no handler: no bundle carries it.
 */

/** What a fixture may ask to have made first, each through the routes themselves (`makePrerequisites`). */
export type Prerequisite = 'key' | 'endpoint' | 'event' | 'identity';
const PREREQUISITES: readonly Prerequisite[] = ['key', 'endpoint', 'event', 'identity'];

/** What was made for the request: the team and its manager key always, the prerequisites asked for. */
export interface FixtureMade {
  readonly teamId: string;
  /** A secret live key of the team (not the manager key the request is made with). */
  readonly key: { readonly id: string; readonly key: string };
  /** A webhook endpoint of the team (on a loopback port nothing listens on). */
  readonly endpoint: { readonly id: string };
  /** A lifecycle event of the team's, sent to the endpoint as a test. */
  readonly event: { readonly id: string };
  /** An identity of the team (its external id made unique per run). */
  readonly identity: { readonly id: string };
}

export interface RouteFixture {
  /** Made before the request, in order, not measured; a fixture that uses one up (a delete) gets it fresh each time. */
  readonly needs: readonly Prerequisite[];
  /** The request's input: its JSON body, or its query (GET). */
  request(made: FixtureMade): unknown;
  /** The status the valid request answers. */
  readonly status: number;
  /** What the route makes for other routes' fixtures, read from its answer's `data` (a key, an endpoint, an event). */
  readonly makes?: { readonly what: Prerequisite; from(data: Record<string, string>): { readonly id: string; readonly key?: string } };
  /** A list route's listings, by name: the query of each (its partition), without `limit` or `cursor`. */
  partitions?(made: FixtureMade): Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export const defineFixture = <const F extends RouteFixture>(fixture: F): F => fixture;

/** Sends one request to a route as the team's manager (a route's own transport: the tests', the cost run's): its status and JSON body. */
export type FixtureSend = (route: string, input: unknown) => Promise<{ status: number; body: unknown }>;

/** A route's fixture, by the route's name. */
export interface NamedFixture {
  readonly name: string;
  readonly fixture: RouteFixture;
}

/**
 * Makes what `needs` names for the team, each through the route whose
 * fixture `makes` it (its own request, on what was made before it); a
 * prerequisite the fixture did not name reads as an error.
 */
export async function makePrerequisites(
  needs: readonly Prerequisite[],
  teamId: string,
  send: FixtureSend,
  fixtures: readonly NamedFixture[],
): Promise<FixtureMade> {
  const made: Record<string, unknown> = { teamId };
  const guarded = new Proxy(made, {
    get: (target, name) => {
      if (PREREQUISITES.includes(name as Prerequisite) && !(name in target)) throw new Error(`the fixture uses ${String(name)} but does not name it in needs`);
      return target[name as string];
    },
  }) as unknown as FixtureMade;
  for (const need of needs) {
    const maker = fixtures.find((candidate) => candidate.fixture.makes?.what === need);
    if (!maker?.fixture.makes) throw new Error(`no route's fixture makes ${need}`);
    const { status, body } = await send(maker.name, maker.fixture.request(guarded));
    const data = (body as { data?: Record<string, string> } | undefined)?.data;
    if (status >= 300 || !data) throw new Error(`making ${need} with ${maker.name} answered ${status}: ${JSON.stringify(body)}`);
    made[need] = maker.fixture.makes.from(data);
  }
  return guarded;
}
