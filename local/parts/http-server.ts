import { localDynamoClient } from '../dynamodb-local';
import { localPages } from '../pages';
import { createLocalServer } from '../server';
import { moduleHandlerLoader } from '../route-handlers';
import { makeHandler as makeManagementAuthorizer } from '../../lambda/handlers/management-authorizer';
import { createPlanGateway, type ManagementAuthorizer } from '../usage-plans';
import { systemClock } from '../../lambda/platform/clock';
import { type PlatformStage } from '../platform-stage';
import { required, type LocalRuntimePart } from './part';

/** The API on HOST:PORT; one log line per request. */
export const httpServerPart: LocalRuntimePart = {
  name: 'HTTP server',
  async start(context) {
    const { settings } = context;
    const services = required(context.services, 'services');
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    const gateway = createPlanGateway({
      plans: settings.plans,
      authorizer: makeManagementAuthorizer(() => services) as unknown as ManagementAuthorizer,
      client,
      keyTableName: settings.keyTableName,
      clock: systemClock,
    });
    const server = await createLocalServer({
      port: settings.port,
      host: settings.host,
      loadHandler: moduleHandlerLoader(() => services),
      gateway,
      logger: context.runtimeLog,
      logRequest: (entry) => context.runtimeLog.info('request', { ...entry }),
      pages: await localPages(),
      platform: context.platformStage ? (request) => (context.platformStage as PlatformStage).answer(request) : undefined,
    });
    context.server = server;
    context.dataDirClaim?.update({ baseUrl: server.url });
    return async () => {
      await server.close();
      client.destroy();
    };
  },
};
