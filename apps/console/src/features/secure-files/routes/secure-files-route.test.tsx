import { ModalsProvider } from '@mantine/modals';
import type { TGroup, TSecureRepoListResponse, TSecureRepoNode } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { refuseUploadsAsMalformed } from '../../../test/fake-xhr';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { seedAdminSession } from '../../../test/session';
import { SecureFilesRoute } from './secure-files-route';

const folder: TSecureRepoNode = {
  nodeId: 'folder-1',
  parentNodeId: null,
  nodeType: 'folder',
  folderName: 'Drawings',
  description: '',
  groups: [7],
  owner: 'admin',
  size: null,
  sha256: null,
  contentType: null,
  classification: null,
  dateCreated: '2026-11-01T10:00:00.000Z',
  dateModified: '2026-11-01T10:00:00.000Z',
};

const listed: TSecureRepoListResponse = {
  nodes: [],
  currentNode: folder,
  owner: 'admin',
  ancestors: [],
  pageNum: 1,
  numberOfItems: 25,
  totalNumOfPages: 1,
  totalNumOfItems: 0,
};

beforeEach(() => {
  setSessionToken('token-1');
  refuseUploadsAsMalformed();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/secure-repo/list') return new Response(JSON.stringify(listed), { status: 200 });
      if (pathname === '/ui/groups/list') {
        const group: TGroup = {
          userGroupId: 7,
          name: 'Designers',
          description: '',
          members: [],
          dateCreated: '2026-11-01T10:00:00.000Z',
        };
        return new Response(
          JSON.stringify({ data: [group], pageNum: 1, numberOfItems: 500, totalNumOfPages: 1, totalNumOfItems: 1 }),
          { status: 200 },
        );
      }
      return new Response('{}', { status: 500 });
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

function renderFolder(locale: TestLocale) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  seedAdminSession(client);
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[`/secure-files/${folder.nodeId}`]}>
        <ModalsProvider>
          <Routes>
            <Route path="/secure-files/:nodeId" element={<SecureFilesRoute />} />
          </Routes>
        </ModalsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
    { locale },
  );
}

describe('the punctuation of the secure files screen', () => {
  it.each([
    ['en', 'Created by admin', 'Shared with:'],
    ['zh', '创建者：admin', '共享给：'],
    ['es', 'Creada por admin', 'Compartida con:'],
  ] as const)("is the language's next to the folder's owner and groups (%s)", async (locale, owner, sharedWith) => {
    renderFolder(locale);
    await screen.findByText(owner);
    expect(screen.getByText(sharedWith)).toBeTruthy();
    await screen.findByText('Designers');
  });

  it.each([
    ['en', 'bracket.stl: The request is malformed'],
    ['zh', 'bracket.stl：请求格式不正确'],
    ['es', 'bracket.stl: La solicitud está mal formada'],
  ] as const)("is the language's in the refusal of an upload (%s)", async (locale, refused) => {
    renderFolder(locale);
    await screen.findByText('Designers');
    const input = document.querySelector<HTMLInputElement>('[data-testid="secure-files-dropzone"] input[type="file"]')!;
    fireEvent.change(input, { target: { files: [new File(['solid'], 'bracket.stl')] } });
    await waitFor(() => expect(screen.getByText(refused)).toBeTruthy());
  });
});
