import type { TStorageCredentials, TStorageProviderIdentifier, TStorageProviderSettings } from '@manifold/contract';
import { storageProviderIdentifiers } from '@manifold/contract';
import { AppError } from '../lib/app-error.js';
import { type PeerHostPolicy, parsePeerUrl } from '../peers/http-client.js';
import type { AzureSettings } from './azure-storage.js';
import type { S3Settings } from './s3-storage.js';

/** What a provider needs to be opened; sealed at rest as JSON (never answered). */
export type ProviderSettings =
  { identifier: 'local' } | { identifier: 'aws'; s3: S3Settings } | { identifier: 'azure'; azure: AzureSettings };

/**
 * How a refusal names a credential: as the request holds it and as a 400 of the request's schema
 * names it, a property of `credentials` (`credentials.awsStorageEndpoint`).
 */
const fieldOf = (credential: keyof TStorageCredentials) => `credentials.${credential}`;

const invalid = (credential: keyof TStorageCredentials, description: string) =>
  new AppError('storageProviderConfigurationNotValid', { field: fieldOf(credential), description });

function required(value: string | undefined, field: keyof TStorageCredentials, pattern: RegExp, what: string): string {
  const text = value?.trim() ?? '';
  if (!text) throw invalid(field, `${fieldOf(field)} is required`);
  if (!pattern.test(text)) throw invalid(field, `${fieldOf(field)} is not ${what}`);
  return text;
}

/** An endpoint an admin typed: http(s), no credentials, a host `STORAGE_ENDPOINT_ALLOWED_HOSTS` allows. */
function endpoint(value: string | undefined, field: keyof TStorageCredentials, policy: PeerHostPolicy): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  try {
    return parsePeerUrl(text, policy).toString().replace(/\/+$/, '');
  } catch (error) {
    if (error instanceof AppError)
      throw invalid(field, error.message.replace('PEER_ALLOWED_HOSTS', 'STORAGE_ENDPOINT_ALLOWED_HOSTS'));
    throw error;
  }
}

export function isProviderIdentifier(value: string): value is TStorageProviderIdentifier {
  return (storageProviderIdentifiers as readonly string[]).includes(value);
}

/**
 * Checks an admin's provider choice and answers what opens it; 420
 * `storageProviderConfigurationNotValid` naming the field otherwise. Nothing is contacted here
 * (the probe does that).
 */
export function providerSettings(
  identifier: TStorageProviderIdentifier,
  credentials: TStorageCredentials,
  endpointPolicy: PeerHostPolicy,
): ProviderSettings {
  if (identifier === 'local') return { identifier };
  if (identifier === 'aws') {
    const custom = endpoint(credentials.awsStorageEndpoint, 'awsStorageEndpoint', endpointPolicy);
    return {
      identifier,
      s3: {
        region: required(credentials.awsStorageRegion, 'awsStorageRegion', /^[a-z0-9-]{1,32}$/, 'a region name'),
        accessKeyId: required(credentials.awsAccessKeyId, 'awsAccessKeyId', /^[\x21-\x7e]{1,256}$/, 'an access key id'),
        secretAccessKey: required(
          credentials.awsSecretAccessKey,
          'awsSecretAccessKey',
          /^[\x21-\x7e]{1,1024}$/,
          'a secret access key',
        ),
        bucket: required(credentials.awsStorageBucket, 'awsStorageBucket', /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name'),
        ...(custom ? { endpoint: custom, forcePathStyle: true } : {}),
      },
    };
  }
  const custom = endpoint(credentials.azureEndpoint, 'azureEndpoint', endpointPolicy);
  return {
    identifier,
    azure: {
      accountName: required(credentials.azureAccountName, 'azureAccountName', /^[a-z0-9]{3,24}$/, 'a storage account name'),
      accountKey: required(credentials.azureAccountKey, 'azureAccountKey', /^[A-Za-z0-9+/]{16,1024}={0,2}$/, 'an account key'),
      container: required(
        credentials.azureContainerName,
        'azureContainerName',
        /^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/,
        'a container name',
      ),
      ...(custom ? { endpoint: custom } : {}),
    },
  };
}

/**
 * The settings of a provider that are no secret, named as the request names them (the region,
 * bucket and endpoint of S3; the account, container and endpoint of Azure): what the storage
 * screen shows of the chosen provider. Keys are left out; null for the local disk.
 */
export function publicSettings(settings: ProviderSettings): TStorageProviderSettings | null {
  if (settings.identifier === 'aws') {
    const { region, bucket, endpoint } = settings.s3;
    return { awsStorageRegion: region, awsStorageBucket: bucket, ...(endpoint ? { awsStorageEndpoint: endpoint } : {}) };
  }
  if (settings.identifier === 'azure') {
    const { accountName, container, endpoint } = settings.azure;
    return { azureAccountName: accountName, azureContainerName: container, ...(endpoint ? { azureEndpoint: endpoint } : {}) };
  }
  return null;
}
