// The order in which `npm test` starts its files: within each project, the longest first, so that
// the two workers end together rather than one waiting on a long file started last. The figures are
// seconds per file from a full run (scripts/test-durations.json, written by
// `node scripts/test-durations.mjs` from Vitest's own record of the last run). A file not in them
// starts first, as Vitest's own order does with files it has not timed.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const durationsFile = path.join(import.meta.dirname, 'test-durations.json');

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(durationsFile, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const keys = new Map(
      files.map((spec) => [
        spec,
        `${spec.project.name}:${path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/')}`,
      ]),
    );
    const seconds = (spec: TestSpecification) => durations[keys.get(spec)!] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const sa = seconds(a);
      const sb = seconds(b);
      if (sa !== sb) return sa > sb ? -1 : 1;
      return keys.get(a)!.localeCompare(keys.get(b)!);
    });
  }
}
