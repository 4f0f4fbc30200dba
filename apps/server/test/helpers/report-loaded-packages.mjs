// Preloaded into a server process by startup.int.test.ts (`node --import`): on SIGUSR2 it writes
// one line to stderr naming the npm packages whose CommonJS modules the process has loaded.
import Module from 'node:module';
import process from 'node:process';

process.on('SIGUSR2', () => {
  const names = new Set();
  for (const file of Object.keys(Module._cache)) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (match) names.add(match[1].replace('\\', '/'));
  }
  process.stderr.write(`loaded packages: ${JSON.stringify([...names].sort())}\n`);
});
