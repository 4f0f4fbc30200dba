import { createStore, type Store } from './store';

/** Nine screen positions (spec §4): three rows by three columns. */
export const alertPositions = [
  'top-left',
  'top-center',
  'top-right',
  'middle-left',
  'middle-center',
  'middle-right',
  'bottom-left',
  'bottom-center',
  'bottom-right',
] as const;
export type AlertPosition = (typeof alertPositions)[number];
export const alertTypes = ['info', 'success', 'error'] as const;
export type AlertType = (typeof alertTypes)[number];
export const alertTransitions = ['fade', 'scale'] as const;
export type AlertTransition = (typeof alertTransitions)[number];

export interface AlertOptions {
  position: AlertPosition;
  /** Milliseconds until the alert closes itself; 0 keeps it until closed. */
  timeout: number;
  type: AlertType;
  transition: AlertTransition;
}

export interface Alert {
  id: string;
  message: string;
  options: AlertOptions;
  /** False while the alert plays its closing transition. */
  visible: boolean;
  close: () => void;
}

/** Constants of spec §9. */
export const alertDefaults = {
  position: 'top-center',
  timeout: 5_000,
  type: 'info',
  transition: 'fade',
  transitionDuration: 250,
  offset: 10,
  zIndex: 100,
} as const;

export interface AlertQueue {
  store: Store<readonly Alert[]>;
  show: (message: string, options?: Partial<AlertOptions>) => Alert;
  info: (message: string, options?: Partial<Omit<AlertOptions, 'type'>>) => Alert;
  success: (message: string, options?: Partial<Omit<AlertOptions, 'type'>>) => Alert;
  error: (message: string, options?: Partial<Omit<AlertOptions, 'type'>>) => Alert;
  close: (id: string) => void;
  clear: () => void;
}

export function createAlertQueue(): AlertQueue {
  const store = createStore<readonly Alert[]>([]);
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let sequence = 0;

  function remove(id: string): void {
    store.set((alerts) => alerts.filter((alert) => alert.id !== id));
  }

  function close(id: string): void {
    const timer = timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.delete(id);
    const alert = store.get().find((candidate) => candidate.id === id);
    if (!alert || !alert.visible) return;
    store.set((alerts) => alerts.map((candidate) => (candidate.id === id ? { ...candidate, visible: false } : candidate)));
    setTimeout(() => remove(id), alertDefaults.transitionDuration);
  }

  function show(message: string, options: Partial<AlertOptions> = {}): Alert {
    sequence += 1;
    const id = `alert-${sequence}`;
    const alert: Alert = {
      id,
      message,
      options: {
        position: options.position ?? alertDefaults.position,
        timeout: options.timeout ?? alertDefaults.timeout,
        type: options.type ?? alertDefaults.type,
        transition: options.transition ?? alertDefaults.transition,
      },
      visible: true,
      close: () => close(id),
    };
    store.set((alerts) => [...alerts, alert]);
    if (alert.options.timeout > 0)
      timers.set(
        id,
        setTimeout(() => close(id), alert.options.timeout),
      );
    return alert;
  }

  function clear(): void {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
    store.set([]);
  }

  return {
    store,
    show,
    info: (message, options) => show(message, { ...options, type: 'info' }),
    success: (message, options) => show(message, { ...options, type: 'success' }),
    error: (message, options) => show(message, { ...options, type: 'error' }),
    close,
    clear,
  };
}

/** The console's one alert queue, rendered by the shell. */
export const alerts = createAlertQueue();
