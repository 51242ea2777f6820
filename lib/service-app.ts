import { App, type AppProps } from 'aws-cdk-lib';
import type { NagPack } from 'cdk-nag';
import { ApiKeyServiceStack } from './api-key-service-stack';
import { readServiceConfig, type ServiceConfig } from './config';
import { addNagPacks } from './nag';

export interface ServiceApp {
  readonly app: App;
  readonly config: ServiceConfig;
  readonly stack: ApiKeyServiceStack;
  readonly nagPacks: NagPack[];
}

/**
 * Builds the CDK app: reads the configuration from context, adds the one
 * stack (`ApiKeyService-<stage>`) and the cdk-nag packs. `bin/app.ts` and
 * the tests both build the app here, so they synthesize the same thing.
 *
 * The stack is environment-agnostic (no account or region baked in): it
 * deploys wherever the credentials of `cdk deploy` point, and synthesis
 * needs no AWS access.
 */
export function createServiceApp(props: AppProps = {}): ServiceApp {
  const app = new App(props);
  const config = readServiceConfig(app);
  const stack = new ApiKeyServiceStack(app, `ApiKeyService-${config.stage}`, {
    config,
    description: `API key service (${config.stage}): issues, regenerates, deletes and verifies API keys`,
  });
  const nagPacks = addNagPacks(app);
  return { app, config, stack, nagPacks };
}
