/**
 * The routes' fixtures (lambda/routes/<route>/fixture.ts) as the tests run
 * them: each route's valid request, sent the way its caller sends it (a
 * manager's Bearer key, a public body, GitHub's signature), after its
 * prerequisites were made through the routes. Every answer is checked
 * against the OpenAPI document by the call helpers.
 */
import type { FixtureMade, FixtureSend, RouteFixture } from '../../lambda/contract/fixtures';
import { routeNamed, type RouteName } from '../../lambda/routes';
import { fixtureOf, prerequisites } from '../../lambda/routes/fixtures';
import { call, newTeam, type CallResult, type Endpoint, type TestTeam } from './api';
import { callGithubSigned } from './github';
import { callVerify } from '../verify/helpers';

/** Sends `input` to `name` the way its caller does: the team's manager key (body or query), a public body, a GitHub-signed body. */
export function sendAs(team: Pick<TestTeam, 'key'>): (name: string, input: unknown) => Promise<CallResult> {
  return async (name, input) => {
    const route = routeNamed(name);
    if (!route) throw new Error(`no route ${name}`);
    if (route.caller === 'public') return route.input === 'query' ? call(name as Endpoint, { query: input as Record<string, string> }) : callVerify(input);
    if (route.caller === 'partner') return callGithubSigned(input);
    const options = route.input === 'query' ? { query: input as Record<string, string> } : { body: input };
    return call(name as Endpoint, { key: team.key, ...options });
  };
}

/** A new team with the fixture's prerequisites made, and the request's input. */
export async function prepare(name: RouteName, team?: TestTeam): Promise<{ team: TestTeam; made: FixtureMade; input: unknown; fixture: RouteFixture }> {
  const fixture = fixtureOf(name);
  const owner = team ?? (await newTeam());
  const send: FixtureSend = sendAs(owner);
  const made = await prerequisites(fixture.needs, owner.teamId, send);
  return { team: owner, made, input: fixture.request(made), fixture };
}

/** The smoke test of one route: its fixture's valid request answers the fixture's status, as the OpenAPI document describes it. */
export function smokeTest(name: RouteName): void {
  describe(`${name}: its fixture`, () => {
    it(`answers the valid request with ${fixtureOf(name).status}, as documented`, async () => {
      const { team, input, fixture } = await prepare(name);
      const answer = await sendAs(team)(name, input);
      // A fixture may document an error as its valid request's answer (the checkpoint of a team that has none yet: 404).
      expect([answer.status, answer.status < 300 || answer.status === fixture.status ? 'ok' : answer.body]).toEqual([fixture.status, 'ok']);
    });
  });
}
