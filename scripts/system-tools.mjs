// The Debian tools the test suites run for real: `xmlsec1` and `openssl` (crypto unit and
// integration tests check signatures and certificates with them), `chromium` (end-to-end tests).
// `npm test` and `npm run test:e2e` call `ensureSystemTools` before any test: what is missing is
// installed when this process may (root, `apt-get` on the PATH); otherwise the run stops with one
// line per missing tool naming the command that installs it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** @typedef {{ command: string, package: string }} SystemTool */

/** @type {readonly SystemTool[]} */
export const systemTools = [
  { command: 'xmlsec1', package: 'xmlsec1' },
  { command: 'openssl', package: 'openssl' },
  { command: 'chromium', package: 'chromium' },
];

/**
 * The executable `command` resolves to on `searchPath` (a PATH value), or null.
 * @param {string} command
 * @param {string} searchPath
 * @returns {string | null}
 */
export function findOnPath(command, searchPath) {
  for (const directory of searchPath.split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here: try the next directory
    }
  }
  return null;
}

/**
 * @typedef {object} EnsureOptions
 * @property {string} [label] prefix of every line, e.g. "npm test"
 * @property {readonly SystemTool[]} [tools]
 * @property {string} [searchPath] the PATH to look tools up on
 * @property {number | undefined} [uid] the process's user id (undefined where there is none)
 * @property {(command: string, searchPath: string) => string | null} [which]
 * @property {(command: string, args: string[]) => { status: number | null, output: string }} [run]
 * @property {(line: string) => void} [log]
 */

/** @type {NonNullable<EnsureOptions['run']>} */
function runQuietly(command, args) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return {
    status: result.error ? null : result.status,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`,
  };
}

/**
 * Makes sure every tool is on the PATH. Returns true when they all are (after installing the
 * missing ones if this process may), false after logging one line per tool still missing.
 * @param {EnsureOptions} [options]
 * @returns {boolean}
 */
export function ensureSystemTools(options = {}) {
  const {
    label = 'npm test',
    tools = systemTools,
    searchPath = process.env.PATH ?? '',
    uid = process.getuid?.(),
    which = findOnPath,
    run = runQuietly,
    log = (line) => console.error(line),
  } = options;
  const missing = () => tools.filter((tool) => which(tool.command, searchPath) === null);

  let absent = missing();
  if (absent.length === 0) return true;

  const root = uid === 0;
  if (root && which('apt-get', searchPath) !== null) {
    const packages = absent.map((tool) => tool.package);
    log(`${label}: installing ${packages.join(', ')} with apt-get`);
    for (const args of [
      ['update', '-qq'],
      ['install', '-y', '-qq', ...packages],
    ]) {
      const result = run('apt-get', args);
      if (result.status !== 0) {
        const tail = result.output.trim().split('\n').slice(-5).join('\n');
        log(`${label}: apt-get ${args.join(' ')} failed${tail ? `:\n${tail}` : ''}`);
        break;
      }
    }
    absent = missing();
    if (absent.length === 0) {
      log(`${label}: installed ${packages.join(', ')}`);
      return true;
    }
  }

  const sudo = root ? '' : 'sudo ';
  for (const tool of absent) {
    log(`${label}: ${tool.command} is missing — install it with: ${sudo}apt-get install ${tool.package}`);
  }
  return false;
}
