import { describe, expect, it } from 'vitest';
import { ensureSystemTools, findOnPath } from './system-tools.mjs';

/** A `which` that sees exactly the given commands, as if they were in /usr/bin. */
function whichOf(...present: string[]) {
  return (command: string) => (present.includes(command) ? `/usr/bin/${command}` : null);
}

function recorder() {
  const lines: string[] = [];
  const runs: string[] = [];
  return {
    lines,
    runs,
    log: (line: string) => lines.push(line),
    run: (command: string, args: string[]) => {
      runs.push([command, ...args].join(' '));
      return { status: 0, output: '' };
    },
  };
}

describe('ensureSystemTools', () => {
  it('does nothing when every tool is present', () => {
    const r = recorder();
    const ok = ensureSystemTools({ uid: 0, which: whichOf('xmlsec1', 'openssl', 'chromium', 'apt-get'), log: r.log, run: r.run });
    expect(ok).toBe(true);
    expect(r.lines).toEqual([]);
    expect(r.runs).toEqual([]);
  });

  it('stops with one line per missing tool and installs nothing when not root', () => {
    const r = recorder();
    const ok = ensureSystemTools({ uid: 1000, which: whichOf('openssl', 'chromium', 'apt-get'), log: r.log, run: r.run });
    expect(ok).toBe(false);
    expect(r.lines).toEqual(['npm test: xmlsec1 is missing — install it with: sudo apt-get install xmlsec1']);
    expect(r.runs).toEqual([]);
  });

  it('stops without installing when root but apt-get is not on the PATH', () => {
    const r = recorder();
    const ok = ensureSystemTools({ uid: 0, which: whichOf(), log: r.log, run: r.run });
    expect(ok).toBe(false);
    expect(r.lines).toEqual([
      'npm test: xmlsec1 is missing — install it with: apt-get install xmlsec1',
      'npm test: openssl is missing — install it with: apt-get install openssl',
      'npm test: chromium is missing — install it with: apt-get install chromium',
    ]);
    expect(r.runs).toEqual([]);
  });

  it('installs the missing tools with apt-get when root', () => {
    const present = ['openssl', 'apt-get'];
    const r = recorder();
    const ok = ensureSystemTools({
      uid: 0,
      which: (command) => (present.includes(command) ? `/usr/bin/${command}` : null),
      log: r.log,
      run: (command, args) => {
        const result = r.run(command, args);
        if (args[0] === 'install') present.push('xmlsec1', 'chromium');
        return result;
      },
    });
    expect(ok).toBe(true);
    expect(r.runs).toEqual(['apt-get update -qq', 'apt-get install -y -qq xmlsec1 chromium']);
    expect(r.lines).toEqual(['npm test: installing xmlsec1, chromium with apt-get', 'npm test: installed xmlsec1, chromium']);
  });

  it('names what is still missing when apt-get fails', () => {
    const r = recorder();
    const ok = ensureSystemTools({
      uid: 0,
      which: whichOf('openssl', 'chromium', 'apt-get'),
      log: r.log,
      run: (command, args) => {
        r.runs.push([command, ...args].join(' '));
        return { status: 100, output: 'E: Could not get lock /var/lib/apt/lists/lock\n' };
      },
    });
    expect(ok).toBe(false);
    expect(r.runs).toEqual(['apt-get update -qq']);
    expect(r.lines).toEqual([
      'npm test: installing xmlsec1 with apt-get',
      'npm test: apt-get update -qq failed:\nE: Could not get lock /var/lib/apt/lists/lock',
      'npm test: xmlsec1 is missing — install it with: apt-get install xmlsec1',
    ]);
  });
});

describe('findOnPath', () => {
  it('finds an executable on the PATH and nothing on a PATH without it', () => {
    expect(findOnPath('node', process.env.PATH ?? '')).toMatch(/node$/);
    expect(findOnPath('node', '/nonexistent')).toBeNull();
  });
});
