import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

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
    const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
    process.stderr.write(`manifold: cannot start: ${reason}\n`);
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

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Manifold listening on ${config.publicUrl} (database: ${app.services.database.describe().databaseType})`);
}

void main();
