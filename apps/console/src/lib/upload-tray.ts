import { createStore, type Store } from './store';

export type UploadStatus = 'processing' | 'finished' | 'failed';

export interface UploadContext {
  /** Reports the sent fraction, 0 to 1. */
  onProgress: (fraction: number) => void;
  signal: AbortSignal;
}

/** Descriptor of spec §3: generated id, file, upload and finish functions, upload type, status. */
export interface UploadDescriptor {
  id: string;
  /** What the tray shows: the file's name, or the label of files sent together. */
  name: string;
  /** The file sent (the first of files sent together). */
  file: File;
  /** Every file of the request (one, or those sent together). */
  files: readonly File[];
  uploadType: string;
  upload: (file: File, context: UploadContext) => Promise<unknown>;
  finish?: (result: unknown) => void;
  status: UploadStatus;
  progress: number;
  error?: string;
  /** What the upload failed with, for the tray to say it in the reader's language. */
  failure?: unknown;
}

export interface UploadTrayState {
  toggled: boolean;
  collapsed: boolean;
  files: readonly UploadDescriptor[];
}

export interface UploadRequest<R> {
  uploadType: string;
  upload: (file: File, context: UploadContext) => Promise<R>;
  /** Called with the server's answer once a file has finished. */
  finish?: (result: R) => void;
}

/** Several files sent in one request (for example an inspection with its pictures). */
export interface UploadGroupRequest<R> {
  uploadType: string;
  /** What the tray shows for the request. */
  label: string;
  upload: (files: readonly File[], context: UploadContext) => Promise<R>;
  finish?: (result: R) => void;
}

export interface UploadTray {
  store: Store<UploadTrayState>;
  addFiles: <R>(files: readonly File[], request: UploadRequest<R>) => string[];
  /** One tray entry for one request carrying several files; answers its id. */
  addGroup: <R>(files: readonly File[], request: UploadGroupRequest<R>) => string;
  discard: (id: string) => void;
  close: () => void;
  toggleCollapsed: () => void;
}

const emptyTray: UploadTrayState = { toggled: false, collapsed: false, files: [] };

export function createUploadTray(generateId: () => string = () => crypto.randomUUID()): UploadTray {
  const store = createStore<UploadTrayState>(emptyTray);
  const controllers = new Map<string, AbortController>();

  function update(id: string, change: Partial<UploadDescriptor>): void {
    store.set((state) => ({
      ...state,
      files: state.files.map((file) => (file.id === id ? { ...file, ...change } : file)),
    }));
  }

  function isPresent(id: string): boolean {
    return store.get().files.some((file) => file.id === id);
  }

  function start(descriptor: UploadDescriptor): void {
    const controller = new AbortController();
    controllers.set(descriptor.id, controller);
    const onProgress = (fraction: number) => {
      if (isPresent(descriptor.id)) update(descriptor.id, { progress: Math.max(0, Math.min(1, fraction)) });
    };
    descriptor
      .upload(descriptor.file, { onProgress, signal: controller.signal })
      .then((result) => {
        controllers.delete(descriptor.id);
        if (!isPresent(descriptor.id)) return;
        update(descriptor.id, { status: 'finished', progress: 1 });
        descriptor.finish?.(result);
      })
      .catch((error: unknown) => {
        controllers.delete(descriptor.id);
        if (!isPresent(descriptor.id)) return;
        update(descriptor.id, {
          status: 'failed',
          error: error instanceof Error ? error.message : String(error),
          failure: error,
        });
      });
  }

  function addFiles<R>(files: readonly File[], request: UploadRequest<R>): string[] {
    const { finish } = request;
    const descriptors: UploadDescriptor[] = files.map((file) => ({
      id: generateId(),
      name: file.name,
      file,
      files: [file],
      uploadType: request.uploadType,
      upload: request.upload,
      ...(finish ? { finish: (result: unknown) => finish(result as R) } : {}),
      status: 'processing',
      progress: 0,
    }));
    return push(descriptors);
  }

  function push(descriptors: UploadDescriptor[]): string[] {
    store.set((state) => ({ ...state, toggled: true, files: [...descriptors, ...state.files] }));
    for (const descriptor of descriptors) start(descriptor);
    return descriptors.map((descriptor) => descriptor.id);
  }

  function addGroup<R>(files: readonly File[], request: UploadGroupRequest<R>): string {
    const first = files[0];
    if (!first) throw new Error('An upload group needs at least one file');
    const { finish } = request;
    const [id] = push([
      {
        id: generateId(),
        name: request.label,
        file: first,
        files,
        uploadType: request.uploadType,
        upload: (_file, context) => request.upload(files, context),
        ...(finish ? { finish: (result: unknown) => finish(result as R) } : {}),
        status: 'processing',
        progress: 0,
      },
    ]);
    return id!;
  }

  function discard(id: string): void {
    controllers.get(id)?.abort();
    controllers.delete(id);
    store.set((state) => {
      const files = state.files.filter((file) => file.id !== id);
      return { ...state, files, toggled: files.length > 0 };
    });
  }

  function close(): void {
    for (const controller of controllers.values()) controller.abort();
    controllers.clear();
    store.set(emptyTray);
  }

  function toggleCollapsed(): void {
    store.set((state) => ({ ...state, collapsed: !state.collapsed }));
  }

  return { store, addFiles, addGroup, discard, close, toggleCollapsed };
}

/** The console's one upload tray; any feature pushes its uploads here. */
export const uploadTray = createUploadTray();
