import type { TSecureRepoNode } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderWithProviders } from '../../../test/render';
import { seedAdminSession } from '../../../test/session';
import { NodeForm, type NodeFormMode } from './node-form';

/** A labelled folder and a subfolder of it: the subfolder answers the label it inherits. */
const parent: TSecureRepoNode = {
  nodeId: 'folder-1',
  parentNodeId: null,
  nodeType: 'folder',
  folderName: 'Drawings',
  description: '',
  groups: [],
  owner: 'admin',
  size: null,
  sha256: null,
  contentType: null,
  classification: 'CUI',
  dateCreated: '2026-11-01T10:00:00.000Z',
  dateModified: '2026-11-01T10:00:00.000Z',
};
const subfolder: TSecureRepoNode = { ...parent, nodeId: 'folder-2', parentNodeId: parent.nodeId, folderName: 'Brackets' };

/** The bodies the form posted, by path. */
let posted: Map<string, Record<string, unknown>>;

beforeEach(() => {
  setSessionToken('token-1');
  posted = new Map();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/groups/list') {
        return new Response(
          JSON.stringify({ data: [], pageNum: 1, numberOfItems: 500, totalNumOfPages: 1, totalNumOfItems: 0 }),
          {
            status: 200,
          },
        );
      }
      if (pathname === '/ui/secure-repo/edit-file' || pathname === '/ui/secure-repo/create-folder') {
        posted.set(pathname, JSON.parse(String(init?.body)) as Record<string, unknown>);
        return new Response(JSON.stringify(subfolder), { status: 200 });
      }
      return new Response('{}', { status: 500 });
    }),
  );
});

function renderForm(mode: NodeFormMode, onDone = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  seedAdminSession(client);
  renderWithProviders(
    <QueryClientProvider client={client}>
      <NodeForm mode={mode} onCancel={() => undefined} onDone={onDone} />
    </QueryClientProvider>,
  );
  return onDone;
}

async function chooseLabel(label: string) {
  fireEvent.click(screen.getByRole('textbox', { name: 'Label (CUI, FCI)' }));
  fireEvent.click(await screen.findByRole('option', { name: label }));
}

describe("a subfolder's label in the folder form", () => {
  it('is not sent when an ADMIN edits a subfolder and leaves the label it inherits', async () => {
    const done = renderForm({ kind: 'edit', node: subfolder, canShare: true });
    fireEvent.change(screen.getByRole('textbox', { name: 'Description' }), { target: { value: 'Bracket drawings' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    const body = posted.get('/ui/secure-repo/edit-file')!;
    expect(body).toMatchObject({ nodeId: subfolder.nodeId, description: 'Bracket drawings' });
    expect(body).not.toHaveProperty('classification');
  });

  it('is sent when the ADMIN changes it', async () => {
    const done = renderForm({ kind: 'edit', node: subfolder, canShare: true });
    await chooseLabel('FCI');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(posted.get('/ui/secure-repo/edit-file')).toMatchObject({ classification: 'FCI' });
  });

  it('is null when the ADMIN removes it', async () => {
    const done = renderForm({ kind: 'edit', node: subfolder, canShare: true });
    await chooseLabel('None');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(posted.get('/ui/secure-repo/edit-file')).toMatchObject({ classification: null });
  });

  it('is not set on a new subfolder that keeps the label of its parent', async () => {
    const done = renderForm({ kind: 'create', parent, canLabel: true });
    fireEvent.change(screen.getByRole('textbox', { name: 'Folder name' }), { target: { value: 'Brackets' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create folder' }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    const body = posted.get('/ui/secure-repo/create-folder')!;
    expect(body).toMatchObject({ parentNodeId: parent.nodeId, folderName: 'Brackets' });
    expect(body).not.toHaveProperty('classification');
  });

  it('is set on a new top-level folder an ADMIN labels', async () => {
    const done = renderForm({ kind: 'create', parent: null, canLabel: true });
    fireEvent.change(screen.getByRole('textbox', { name: 'Folder name' }), { target: { value: 'Contracts' } });
    await chooseLabel('FCI');
    fireEvent.click(screen.getByRole('button', { name: 'Create folder' }));
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(posted.get('/ui/secure-repo/create-folder')).toMatchObject({ folderName: 'Contracts', classification: 'FCI' });
  });
});
