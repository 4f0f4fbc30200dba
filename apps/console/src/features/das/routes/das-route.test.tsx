import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BadRequestError } from '../../../lib/api-errors';
import { renderListScreen, stubListCall } from '../../../test/list-screen';
import type * as DasEntries from '../api/get-das-entries';
import { DasRoute } from './das-route';

vi.mock('../api/get-das-entries', async (importOriginal) => ({
  ...(await importOriginal<typeof DasEntries>()),
  // every upload is refused as malformed
  uploadDesignPackage: () =>
    Promise.reject(
      new BadRequestError('malformed', 400, [{ errorToken: 'malformedRequest', errorDescription: 'The request is malformed' }]),
    ),
}));

beforeEach(() => stubListCall('/ui/das/list', []));
afterEach(() => vi.unstubAllGlobals());

describe('the refusal of a design package upload', () => {
  it.each([
    ['en', 'design.json: The request is malformed'],
    ['zh', 'design.json：请求格式不正确'],
  ] as const)("names the file before the reason with the language's colon (%s)", async (locale, refused) => {
    renderListScreen(<DasRoute />, '/das', { locale });
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    fireEvent.change(input, { target: { files: [new File(['{}'], 'design.json')] } });
    await waitFor(() => expect(screen.getByText(refused)).toBeTruthy());
  });
});
