import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { alertDefaults, alertPositions, createAlertQueue } from './alerts';

describe('alert queue', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('uses the defaults of spec §9', () => {
    expect(alertDefaults).toMatchObject({
      position: 'top-center',
      timeout: 5000,
      transitionDuration: 250,
      offset: 10,
      zIndex: 100,
    });
    expect(alertPositions).toHaveLength(9);
    const queue = createAlertQueue();
    const alert = queue.show('Saved');
    expect(alert.options).toEqual({ position: 'top-center', timeout: 5000, type: 'info', transition: 'fade' });
  });

  it('queues alerts in order with their own type and position', () => {
    const queue = createAlertQueue();
    queue.success('one');
    queue.error('two', { position: 'bottom-left', transition: 'scale' });
    queue.info('three', { position: 'middle-center' });
    expect(queue.store.get().map((alert) => [alert.message, alert.options.type, alert.options.position])).toEqual([
      ['one', 'success', 'top-center'],
      ['two', 'error', 'bottom-left'],
      ['three', 'info', 'middle-center'],
    ]);
    expect(queue.store.get()[1]?.options.transition).toBe('scale');
  });

  it('closes an alert after its timeout, then removes it when the 250 ms transition ends', () => {
    const queue = createAlertQueue();
    queue.show('bye');
    vi.advanceTimersByTime(4999);
    expect(queue.store.get()[0]?.visible).toBe(true);
    vi.advanceTimersByTime(1);
    expect(queue.store.get()[0]?.visible).toBe(false);
    vi.advanceTimersByTime(249);
    expect(queue.store.get()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(queue.store.get()).toHaveLength(0);
  });

  it('keeps an alert with a zero timeout until it is closed', () => {
    const queue = createAlertQueue();
    const alert = queue.show('sticky', { timeout: 0 });
    vi.advanceTimersByTime(60_000);
    expect(queue.store.get()).toHaveLength(1);
    alert.close();
    vi.advanceTimersByTime(250);
    expect(queue.store.get()).toHaveLength(0);
  });

  it('closes only the alert asked for', () => {
    const queue = createAlertQueue();
    const first = queue.show('first', { timeout: 0 });
    queue.show('second', { timeout: 0 });
    queue.close(first.id);
    vi.advanceTimersByTime(250);
    expect(queue.store.get().map((alert) => alert.message)).toEqual(['second']);
  });
});
