import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refuseUploadsAsMalformed } from '../../../test/fake-xhr';
import { renderListScreen, stubListCall } from '../../../test/list-screen';
import { DasRoute } from './das-route';

beforeEach(() => {
  stubListCall('/ui/das/list', []);
  refuseUploadsAsMalformed();
});
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
