/**
 * The AWS SDK clients' default credential chain, as the function bundles
 * use it (lib/house-function.ts aliases `@aws-sdk/credential-provider-node`
 * to this module): the SDK's own providers for the places a Lambda function
 * gets credentials, and none of the others.
 *
 * Lambda hands a function its execution role's credentials in environment
 * variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`), which the SDK's chain reads first. After them come,
 * as in the SDK's chain, a container credentials endpoint
 * (`AWS_CONTAINER_CREDENTIALS_FULL_URI` / `_RELATIVE_URI`) and the instance
 * metadata service. Left out are the providers that read profiles, SSO
 * sessions, credential processes and web identity token files: a function
 * has none of those files, and they bring the STS and SSO clients (about
 * 115 KB of every bundle, never run).
 *
 * Exports what the SDK clients import from `@aws-sdk/credential-provider-node`.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';
import { fromContainerMetadata, fromInstanceMetadata } from '@smithy/credential-provider-imds';
import { chain, CredentialsProviderError, memoize } from '@smithy/core/config';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { optionalSetting } from '../platform/environment';

type ProviderInit = NonNullable<Parameters<typeof fromEnv>[0]>;

/** Credentials that expire are refreshed 5 minutes before they do, as the SDK's chain does. */
export const credentialsWillNeedRefresh = (credentials?: AwsCredentialIdentity): boolean => credentials?.expiration !== undefined;
export const credentialsTreatedAsExpired = (credentials?: AwsCredentialIdentity): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;

/**
 * A container credentials endpoint when one is named, else the instance
 * metadata service (unless disabled). Imported statically: through import()
 * esbuild wraps every module they reach (some 250 of @smithy/core's) for lazy
 * evaluation and keeps whole packages, about 4 KB more in every bundle; they
 * are small and run nothing at load.
 */
function remote(init: ProviderInit): AwsCredentialIdentityProvider {
  return async () => {
    if (optionalSetting('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI') || optionalSetting('AWS_CONTAINER_CREDENTIALS_FULL_URI')) {
      return chain(fromHttp(init), fromContainerMetadata(init))();
    }
    const disabled = optionalSetting('AWS_EC2_METADATA_DISABLED');
    if (disabled && disabled !== 'false') {
      throw new CredentialsProviderError('No credentials in the environment, no container credentials endpoint, and instance metadata disabled', {
        logger: init.logger,
      });
    }
    return fromInstanceMetadata(init)();
  };
}

export const defaultProvider = (init: ProviderInit = {}): AwsCredentialIdentityProvider =>
  memoize(chain(fromEnv(init), remote(init)), credentialsTreatedAsExpired, credentialsWillNeedRefresh);
