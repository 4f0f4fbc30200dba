// Set-up of the e2e project: when a test fails, the screens of its open pages are kept
// (test-results/e2e-failures/) and their files named in the output, to see where a step gave up.
import { beforeEach } from 'vitest';
import { saveOpenPages } from './browser';

beforeEach(({ onTestFailed, task }) => {
  onTestFailed(async () => {
    const files = await saveOpenPages(`${task.file?.name ?? ''} ${task.name}`);
    if (files.length > 0) console.error(`screens of the failed test "${task.name}":\n  ${files.join('\n  ')}`);
  });
});
