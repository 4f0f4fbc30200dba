/** Resolves after the I/O callbacks already due have run (one turn of the event loop, no timer). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs work for one key at a time and lets requests for the same key run together: a batch of a
 * key starts one event-loop turn after its first request (`setImmediate`, no timer: the requests
 * whose input has already arrived reach `submit` first and join it), and the requests that arrive
 * while it runs are handed to `run` as the next batch when it finishes (at most `maxBatch` at a
 * time). Different keys run independently. `run` answers one result per item, in order: a value,
 * or an Error for that item alone; if `run` itself throws, every item of the batch gets that error.
 */
export class KeyedBatches<T, R> {
  private readonly queues = new Map<string, { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[]>();

  constructor(
    private readonly run: (key: string, items: T[]) => Promise<(R | Error)[]>,
    private readonly maxBatch = 64,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.queues.set(key, [{ item, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    const queue = this.queues.get(key)!;
    while (queue.length > 0) {
      // a synchronous database (SQLite) runs a whole request, and a whole batch, within one
      // callback: without this turn every batch would hold the one request that started it
      await nextTurn();
      const batch = queue.splice(0, this.maxBatch);
      try {
        const results = await this.run(
          key,
          batch.map((entry) => entry.item),
        );
        batch.forEach((entry, i) => {
          const result = results[i];
          if (result instanceof Error) entry.reject(result);
          else if (i < results.length) entry.resolve(result as R);
          else entry.reject(new Error(`a batch of ${batch.length} answered ${results.length} results`));
        });
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.queues.delete(key);
  }
}
