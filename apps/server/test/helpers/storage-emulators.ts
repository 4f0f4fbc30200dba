import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import type { TStorageCredentials } from '@manifold/contract';
import type { AzureSettings } from '../../src/storage/azure-storage.js';
import type { S3Settings } from '../../src/storage/s3-storage.js';
import { freePort } from './server-process.js';

const require = createRequire(import.meta.url);

/** Azurite's well-known development account (public, documented by Microsoft). */
const AZURITE_ACCOUNT = 'devstoreaccount1';
const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface StorageEmulators {
  s3: S3Settings;
  azure: AzureSettings;
  /** The same places as the admin's provider credentials. */
  s3Credentials: TStorageCredentials;
  azureCredentials: TStorageCredentials;
  /** A further bucket and container (named alike) for a test that needs its own. */
  createPlace(name: string): Promise<{ s3Credentials: TStorageCredentials; azureCredentials: TStorageCredentials }>;
  /** Kills both emulators by pid and removes their data. */
  stop(): Promise<void>;
}

/** Runs an npm tool's entry point as a child node process; answers once its port accepts connections. */
async function startTool(script: string, args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(script)} exited: ${output}`);
    if (await accepts(port)) return child;
    if (Date.now() > deadline) {
      stopChild(child);
      throw new Error(`${path.basename(script)} did not listen on ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopChild(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Starts s3rver (S3) and Azurite (Azure Blob) on loopback ports, each as its own node process,
 * with a bucket and a container ready. Call `stop()` in `afterAll`: it kills them by pid.
 */
export async function startStorageEmulators(): Promise<StorageEmulators> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-emulators-'));
  const children: ChildProcess[] = [];
  // a test process that ends without its afterAll still takes its emulators along
  const onExit = () => children.forEach(stopChild);
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    for (const child of children) stopChild(child);
    await fs.rm(directory, { recursive: true, force: true });
  };
  try {
    const s3Port = await freePort();
    const s3rverScript = path.join(path.dirname(require.resolve('s3rver/package.json')), 'bin/s3rver.js');
    await fs.mkdir(path.join(directory, 's3'));
    children.push(
      await startTool(
        s3rverScript,
        ['--address', '127.0.0.1', '--port', String(s3Port), '--silent', '--directory', path.join(directory, 's3')],
        s3Port,
      ),
    );
    const azurePort = await freePort();
    const azuriteScript = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist/src/blob/main.js');
    children.push(
      await startTool(
        azuriteScript,
        [
          '--blobHost',
          '127.0.0.1',
          '--blobPort',
          String(azurePort),
          '--location',
          path.join(directory, 'azure'),
          '--silent',
          '--skipApiVersionCheck',
        ],
        azurePort,
      ),
    );
    const s3: S3Settings = {
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      bucket: 'manifold-test',
      endpoint: `http://127.0.0.1:${s3Port}`,
      forcePathStyle: true,
    };
    const azure: AzureSettings = {
      accountName: AZURITE_ACCOUNT,
      accountKey: AZURITE_KEY,
      container: 'manifold-test',
      endpoint: `http://127.0.0.1:${azurePort}/${AZURITE_ACCOUNT}`,
    };
    const createPlace = async (name: string) => {
      const client = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3 });
      await client.send(new CreateBucketCommand({ Bucket: name }));
      client.destroy();
      await new BlobServiceClient(azure.endpoint!, new StorageSharedKeyCredential(azure.accountName, azure.accountKey))
        .getContainerClient(name)
        .create();
      return {
        s3Credentials: {
          awsStorageRegion: s3.region,
          awsAccessKeyId: s3.accessKeyId,
          awsSecretAccessKey: s3.secretAccessKey,
          awsStorageBucket: name,
          awsStorageEndpoint: s3.endpoint,
        },
        azureCredentials: {
          azureAccountName: azure.accountName,
          azureAccountKey: azure.accountKey,
          azureContainerName: name,
          azureEndpoint: azure.endpoint,
        },
      };
    };
    const place = await createPlace(s3.bucket);
    return {
      ...place,
      createPlace,
      s3,
      azure,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
