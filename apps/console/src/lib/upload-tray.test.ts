import { describe, expect, it } from 'vitest';
import { createUploadTray, type UploadContext } from './upload-tray';

interface Pending {
  resolve: (value: string) => void;
  reject: (error: Error) => void;
  context: UploadContext;
}

function controllableUpload() {
  const pending = new Map<string, Pending>();
  const upload = (file: File, context: UploadContext) =>
    new Promise<string>((resolve, reject) => {
      pending.set(file.name, { resolve, reject, context });
    });
  return { upload, pending };
}

function file(name: string): File {
  return new File(['content'], name, { type: 'text/plain' });
}

function idGenerator() {
  let next = 0;
  return () => {
    next += 1;
    return `id-${next}`;
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('upload tray', () => {
  it('opens with new files in processing state', () => {
    const tray = createUploadTray(idGenerator());
    const { upload } = controllableUpload();
    expect(tray.store.get().toggled).toBe(false);
    tray.addFiles([file('a.stl')], { uploadType: 'design', upload });
    const state = tray.store.get();
    expect(state.toggled).toBe(true);
    expect(state.files).toHaveLength(1);
    expect(state.files[0]).toMatchObject({ id: 'id-1', status: 'processing', progress: 0, uploadType: 'design' });
  });

  it('puts newly added files in front of earlier ones', () => {
    const tray = createUploadTray(idGenerator());
    const { upload } = controllableUpload();
    tray.addFiles([file('first.stl')], { uploadType: 'design', upload });
    tray.addFiles([file('second.stl'), file('third.stl')], { uploadType: 'design', upload });
    expect(tray.store.get().files.map((entry) => entry.file.name)).toEqual(['second.stl', 'third.stl', 'first.stl']);
  });

  it('carries several files sent in one request as one entry under its label', async () => {
    const tray = createUploadTray(idGenerator());
    const sent: string[][] = [];
    const finished: string[] = [];
    let context: UploadContext | undefined;
    let resolve: (value: string) => void = () => undefined;
    const id = tray.addGroup([file('a.png'), file('b.png')], {
      uploadType: 'inspection',
      label: 'Inspection of Q-1 (2 pictures)',
      upload: (files, given) => {
        sent.push(files.map((entry) => entry.name));
        context = given;
        return new Promise<string>((done) => {
          resolve = done;
        });
      },
      finish: (result) => finished.push(result),
    });
    expect(id).toBe('id-1');
    expect(sent).toEqual([['a.png', 'b.png']]);
    expect(tray.store.get().files).toHaveLength(1);
    expect(tray.store.get().files[0]).toMatchObject({ name: 'Inspection of Q-1 (2 pictures)', status: 'processing' });
    context?.onProgress(0.25);
    expect(tray.store.get().files[0]?.progress).toBe(0.25);
    resolve('recorded');
    await settle();
    expect(tray.store.get().files[0]).toMatchObject({ status: 'finished', progress: 1 });
    expect(finished).toEqual(['recorded']);
    expect(() => tray.addGroup([], { uploadType: 'inspection', label: 'none', upload: () => Promise.resolve('') })).toThrow();
  });

  it('reports progress and moves to finished, calling the finish function with the answer', async () => {
    const tray = createUploadTray(idGenerator());
    const { upload, pending } = controllableUpload();
    const finished: string[] = [];
    tray.addFiles([file('a.stl')], { uploadType: 'design', upload, finish: (result) => finished.push(result) });
    pending.get('a.stl')?.context.onProgress(0.5);
    expect(tray.store.get().files[0]?.progress).toBe(0.5);
    pending.get('a.stl')?.resolve('stored');
    await settle();
    expect(tray.store.get().files[0]).toMatchObject({ status: 'finished', progress: 1 });
    expect(finished).toEqual(['stored']);
  });

  it('moves to failed with the reason when the upload fails', async () => {
    const tray = createUploadTray(idGenerator());
    const { upload, pending } = controllableUpload();
    tray.addFiles([file('a.stl')], { uploadType: 'design', upload });
    pending.get('a.stl')?.reject(new Error('Service Unavailable'));
    await settle();
    expect(tray.store.get().files[0]).toMatchObject({ status: 'failed', error: 'Service Unavailable' });
  });

  it('stays open while files remain after a discard and closes with the last one', () => {
    const tray = createUploadTray(idGenerator());
    const { upload, pending } = controllableUpload();
    const [first, second] = tray.addFiles([file('a.stl'), file('b.stl')], { uploadType: 'design', upload });
    tray.discard(first ?? '');
    expect(tray.store.get().toggled).toBe(true);
    expect(tray.store.get().files.map((entry) => entry.id)).toEqual([second]);
    expect(pending.get('a.stl')?.context.signal.aborted).toBe(true);
    tray.discard(second ?? '');
    expect(tray.store.get()).toMatchObject({ toggled: false, files: [] });
  });

  it('ignores the answer of a discarded upload', async () => {
    const tray = createUploadTray(idGenerator());
    const { upload, pending } = controllableUpload();
    const finished: string[] = [];
    const [id] = tray.addFiles([file('a.stl')], { uploadType: 'design', upload, finish: (result) => finished.push(result) });
    tray.discard(id ?? '');
    pending.get('a.stl')?.resolve('late');
    await settle();
    expect(finished).toEqual([]);
    expect(tray.store.get().files).toEqual([]);
  });

  it('clears the list and aborts running uploads when closed', () => {
    const tray = createUploadTray(idGenerator());
    const { upload, pending } = controllableUpload();
    tray.addFiles([file('a.stl'), file('b.stl')], { uploadType: 'design', upload });
    tray.toggleCollapsed();
    tray.close();
    expect(tray.store.get()).toEqual({ toggled: false, collapsed: false, files: [] });
    expect(pending.get('a.stl')?.context.signal.aborted).toBe(true);
    expect(pending.get('b.stl')?.context.signal.aborted).toBe(true);
  });

  it('collapses and expands', () => {
    const tray = createUploadTray(idGenerator());
    expect(tray.store.get().collapsed).toBe(false);
    tray.toggleCollapsed();
    expect(tray.store.get().collapsed).toBe(true);
    tray.toggleCollapsed();
    expect(tray.store.get().collapsed).toBe(false);
  });
});
