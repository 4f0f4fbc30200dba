import { describe, expect, it } from 'vitest';
import { KeyedBatches } from './keyed-batches.js';

function deferred() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

describe('KeyedBatches', () => {
  it('runs the requests of one turn together, and those arriving meanwhile together after them', async () => {
    const batches: number[][] = [];
    const first = deferred();
    const started = deferred();
    const batcher = new KeyedBatches<number, number>(async (_key, items) => {
      batches.push(items);
      if (batches.length === 1) {
        started.release();
        await first.gate;
      }
      return items.map((item) => item * 10);
    });
    const a = batcher.submit('order-1', 1);
    const b = batcher.submit('order-1', 2);
    expect(batches).toEqual([]);
    await started.gate;
    expect(batches).toEqual([[1, 2]]);
    const c = batcher.submit('order-1', 3);
    const d = batcher.submit('order-1', 4);
    first.release();
    expect(await Promise.all([a, b, c, d])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('keeps keys apart and caps a batch', async () => {
    const batches: string[] = [];
    const batcher = new KeyedBatches<number, number>(async (key, items) => {
      batches.push(`${key}:${items.join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit('a', n)).concat([batcher.submit('b', 9)]));
    expect(batches).toEqual(['a:1,2', 'b:9', 'a:3,4', 'a:5']);
  });

  it('fails one item with its own error, and every item when the batch fails', async () => {
    let calls = 0;
    const batcher = new KeyedBatches<number, number>(async (_key, items) => {
      calls += 1;
      if (calls === 3) throw new Error('database gone');
      return items.map((item) => (item < 0 ? new Error(`refused ${item}`) : item));
    });
    await expect(batcher.submit('k', -1)).rejects.toThrow('refused -1');
    await expect(batcher.submit('k', 4)).resolves.toBe(4);
    await expect(batcher.submit('k', 5)).rejects.toThrow('database gone');
    await expect(batcher.submit('k', 6)).resolves.toBe(6);
  });
});
