import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/app-error.js';
import { parsePeerHostPolicy } from '../peers/http-client.js';
import { providerSettings } from './provider-settings.js';
import { probeFailure } from './provider-storage.js';

const loopback = parsePeerHostPolicy('127.0.0.0/8');
const none = parsePeerHostPolicy('');
const aws = {
  awsStorageRegion: 'eu-central-1',
  awsAccessKeyId: 'AKIAEXAMPLE',
  awsSecretAccessKey: 'secret/with+chars',
  awsStorageBucket: 'manifold-files',
};
const azure = {
  azureAccountName: 'manifoldfiles',
  azureAccountKey: Buffer.alloc(64, 9).toString('base64'),
  azureContainerName: 'files',
};

function refusal(run: () => unknown): { token: string; field: string | undefined } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { token: error.token, field: error.field };
    throw error;
  }
  throw new Error('not refused');
}

describe('providerSettings', () => {
  it('needs nothing for the local disk', () => {
    expect(providerSettings('local', {}, none)).toEqual({ identifier: 'local' });
  });

  it('takes S3 settings, path-style with a custom endpoint the allow-list allows', () => {
    expect(providerSettings('aws', aws, none)).toEqual({
      identifier: 'aws',
      s3: { region: 'eu-central-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/with+chars', bucket: 'manifold-files' },
    });
    expect(providerSettings('aws', { ...aws, awsStorageEndpoint: 'http://127.0.0.1:9000/' }, loopback)).toMatchObject({
      s3: { endpoint: 'http://127.0.0.1:9000', forcePathStyle: true },
    });
  });

  it('takes Azure settings', () => {
    expect(providerSettings('azure', { ...azure, azureEndpoint: 'http://127.0.0.1:10000/devstoreaccount1' }, loopback)).toEqual({
      identifier: 'azure',
      azure: {
        accountName: 'manifoldfiles',
        accountKey: azure.azureAccountKey,
        container: 'files',
        endpoint: 'http://127.0.0.1:10000/devstoreaccount1',
      },
    });
  });

  it.each([
    ['aws', { ...aws, awsStorageBucket: undefined }, 'awsStorageBucket'],
    ['aws', { ...aws, awsStorageBucket: 'Bad_Bucket' }, 'awsStorageBucket'],
    ['aws', { ...aws, awsStorageRegion: 'eu central' }, 'awsStorageRegion'],
    ['aws', { ...aws, awsSecretAccessKey: '  ' }, 'awsSecretAccessKey'],
    ['aws', { ...aws, awsStorageEndpoint: 'http://127.0.0.1:9000' }, 'awsStorageEndpoint'],
    ['aws', { ...aws, awsStorageEndpoint: 'ftp://127.0.0.1' }, 'awsStorageEndpoint'],
    ['aws', { ...aws, awsStorageEndpoint: 'http://user:pw@127.0.0.1' }, 'awsStorageEndpoint'],
    ['azure', { ...azure, azureAccountName: 'Has-Dash' }, 'azureAccountName'],
    ['azure', { ...azure, azureAccountKey: 'not base64!' }, 'azureAccountKey'],
    ['azure', { ...azure, azureContainerName: 'a--b' }, 'azureContainerName'],
  ] as const)('refuses %s settings with a bad %s', (identifier, credentials, field) => {
    const policy = field === 'awsStorageEndpoint' && credentials.awsStorageEndpoint?.startsWith('http://127') ? none : loopback;
    expect(refusal(() => providerSettings(identifier, credentials, policy))).toEqual({
      token: 'storageProviderConfigurationNotValid',
      // named as the request names it (and as a 400 names it): a property of `credentials`
      field: `credentials.${field}`,
    });
  });
});

describe('probeFailure', () => {
  it('reads a refusal by the service as a configuration problem, silence as unavailability', () => {
    expect(probeFailure(Object.assign(new Error('denied'), { $metadata: { httpStatusCode: 403 } })).token).toBe(
      'storageProviderConfigurationNotValid',
    );
    expect(probeFailure(Object.assign(new Error('no bucket'), { statusCode: 404 })).token).toBe(
      'storageProviderConfigurationNotValid',
    );
    expect(probeFailure(Object.assign(new Error('busy'), { statusCode: 503 })).token).toBe('storageProviderNotAvailable');
    expect(probeFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).token).toBe(
      'storageProviderNotAvailable',
    );
  });
});
