import { ModalsProvider } from '@mantine/modals';
import type { TPackageFile } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { refuseUploadsAsMalformed } from '../../../test/fake-xhr';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { PackageFiles } from './package-files';

function file(fileName: string, isPublic: boolean): TPackageFile {
  return {
    fileId: `id-${fileName}`,
    dsiId: 'dsi-1',
    fileName,
    contentType: 'application/octet-stream',
    size: 5000,
    sha256: 'c'.repeat(64),
    isPublic,
    classification: null,
    dateCreated: '2026-11-01T10:00:00.000Z',
    dateModified: '2026-11-01T10:00:00.000Z',
    createdBy: 'admin',
  };
}

function renderFiles(canEdit: boolean, locale: TestLocale = 'en') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <ModalsProvider>
        <PackageFiles dsiId="dsi-1" files={[file('bracket.stl', false), file('drawing.pdf', true)]} canEdit={canEdit} />
      </ModalsProvider>
    </QueryClientProvider>,
    { locale },
  );
}

describe('the download of a package file', () => {
  it('is offered to a user for public files only: the server opens private files to administrators', () => {
    renderFiles(false);
    expect(screen.getByRole('button', { name: 'Download drawing.pdf' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Download bracket.stl' })).toBeNull();
    expect(screen.getByText(/Private files are encrypted at rest/)).toBeTruthy();
  });

  it('is offered to an administrator for every file', () => {
    renderFiles(true);
    expect(screen.getByRole('button', { name: 'Download drawing.pdf' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download bracket.stl' })).toBeTruthy();
  });
});

describe('the refusal of a package file upload', () => {
  beforeEach(() => {
    setSessionToken('token-1');
    refuseUploadsAsMalformed();
  });
  afterEach(() => vi.unstubAllGlobals());

  it.each([
    ['en', 'bracket.stl: The request is malformed'],
    ['zh', 'bracket.stl：请求格式不正确'],
  ] as const)("names the file before the reason with the language's colon (%s)", async (locale, refused) => {
    renderFiles(true, locale);
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    fireEvent.change(input, { target: { files: [new File(['solid'], 'bracket.stl')] } });
    await waitFor(() => expect(screen.getByText(refused)).toBeTruthy());
  });
});
