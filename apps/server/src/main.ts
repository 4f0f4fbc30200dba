import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

/** The first line of what went wrong: a start that fails says so in one line. */
function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n', 1)[0] ?? '') : String(error);
}

async function main(): Promise<void> {
  // everything the server creates (database, keys, stored files, temporary files) is its user's alone
  process.umask(0o077);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`manifold: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  let app;
  try {
    app = await buildApp(config, { startJobs: config.jobs.enabled });
  } catch (error) {
    process.stderr.write(`manifold: cannot start: ${firstLine(error)}\n`);
    process.exit(1);
  }

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received: finishing requests in flight, then stopping`);
    const timer = setTimeout(() => {
      app.log.error('graceful stop took over 30 s; exiting');
      process.exit(1);
    }, 30_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // the port taken or the address not this machine's: one line, as any other failed start; the
    // jobs this process started are handed back and the database closed before it exits
    process.stderr.write(`manifold: cannot start: ${firstLine(error)}\n`);
    setTimeout(() => process.exit(1), 10_000).unref();
    await app.close().catch(() => undefined);
    process.exit(1);
  }
  app.log.info(`Manifold listening on ${config.publicUrl} (database: ${app.services.database.describe().databaseType})`);
}

void main();
