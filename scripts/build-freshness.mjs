// When a build is stale: missing, or older than the newest file of its sources.
import fs from 'node:fs';
import path from 'node:path';

/** The newest modification time of the files under `dir` (node_modules and dist left out). */
export function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether `output` is missing or older than a file of `sources` (directories or files). */
export function isStale(output, sources) {
  if (!fs.existsSync(output)) return true;
  const built = fs.statSync(output).mtimeMs;
  return sources.some((source) => {
    if (!fs.existsSync(source)) return false;
    const stat = fs.statSync(source);
    return (stat.isDirectory() ? newestMtime(source) : stat.mtimeMs) > built;
  });
}
