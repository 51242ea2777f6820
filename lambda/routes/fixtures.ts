/**
 * A route's fixture, found by its folder (lambda/routes/<route>/fixture.ts;
 * lambda/contract/fixtures.ts): what the smoke tests, the cursor forgeries,
 * the store-operations check and the cost run derive their requests from.
 * No handler imports it.
 */
import path from 'node:path';
import { makePrerequisites, type FixtureMade, type FixtureSend, type Prerequisite, type RouteFixture } from '../contract/fixtures';
import { ROUTES, ROUTES_DIR, type RouteName } from './index';

/** The fixture of `name`, from its route folder. */
export function fixtureOf(name: RouteName): RouteFixture {
  // A route's folder is found by its name (as its handler is): no second list of routes.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(ROUTES_DIR, name, 'fixture.ts')) as { fixture: RouteFixture }).fixture;
}

/** The list routes: those whose fixture names partitions. */
export function listRoutes(): RouteName[] {
  return ROUTES.filter((route) => fixtureOf(route.name).partitions).map((route) => route.name);
}

/** Makes `needs` for the team through the routes whose fixtures make them. */
export function prerequisites(needs: readonly Prerequisite[], teamId: string, send: FixtureSend): Promise<FixtureMade> {
  return makePrerequisites(
    needs,
    teamId,
    send,
    ROUTES.map((route) => ({ name: route.name, fixture: fixtureOf(route.name) })),
  );
}
