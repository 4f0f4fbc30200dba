/**
 * Polls `probe` every `intervalMs` until it answers something other than undefined, and answers
 * that; throws `timed out waiting for <what>` after `timeoutMs`. (What a machine's operator, the
 * demo and the tests do while a network of processes settles.)
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 150,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
