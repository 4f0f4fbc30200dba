/**
 * Runs work for one key at a time and lets requests for a busy key wait to run together: the
 * first request of a key starts at once (no timer, no added latency when alone); requests that
 * arrive while it runs are collected and handed to `run` as one batch when it finishes (at most
 * `maxBatch` at a time). Different keys run independently. `run` answers one result per item, in
 * order: a value, or an Error for that item alone; if `run` itself throws, every item of the
 * batch gets that error.
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
