import { MantineProvider } from '@mantine/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/render';
import zh from '../../../public/locales/zh.json';
import { BadRequestError, networkError } from '../../lib/api-errors';
import { createUploadTray } from '../../lib/upload-tray';
import { UploadTrayPanel } from './upload-tray-panel';

describe('UploadTrayPanel', () => {
  it('shows files, collapses, discards and disappears when empty', () => {
    const tray = createUploadTray();
    renderWithProviders(<UploadTrayPanel tray={tray} />);
    expect(screen.queryByRole('region', { name: 'Uploads' })).toBeNull();

    act(() => {
      tray.addFiles([new File(['x'], 'part.stl')], { uploadType: 'design', upload: () => new Promise<void>(() => undefined) });
    });
    expect(screen.getByRole('region', { name: 'Uploads' })).toBeTruthy();
    expect(screen.getByText('part.stl')).toBeTruthy();
    expect(screen.getByText('Uploading… 0%')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Collapse uploads' }));
    expect(screen.queryByText('part.stl')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Expand uploads' }));
    expect(screen.getByText('part.stl')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Discard part.stl' }));
    expect(screen.queryByRole('region', { name: 'Uploads' })).toBeNull();
  });
});

describe('UploadTrayPanel failures', () => {
  it('says why an upload failed in the reader’s language, not in the server’s English', async () => {
    const zhI18n = i18next.createInstance();
    await zhI18n.use(initReactI18next).init({
      lng: 'zh',
      resources: { zh: { translation: zh } },
      interpolation: { escapeValue: false },
      showSupportNotice: false,
    });
    const tray = createUploadTray();
    render(
      <I18nextProvider i18n={zhI18n}>
        <MantineProvider env="test">
          <UploadTrayPanel tray={tray} />
        </MantineProvider>
      </I18nextProvider>,
    );
    const refusal = new BadRequestError('No trust anchor is configured', 420, [
      { errorToken: 'certificateExchangeChainVerifyFail', errorDescription: 'No trust anchor is configured' },
    ]);
    await act(async () => {
      tray.addFiles([new File(['x'], 'signing.pem')], { uploadType: 'provision-signing', upload: () => Promise.reject(refusal) });
      await Promise.resolve();
    });
    const reason = zh.errorTokens.certificateExchangeChainVerifyFail;
    expect(screen.getByText(zh.uploads.failed.replace('{{reason}}', reason))).toBeTruthy();
    expect(screen.queryByText(/No trust anchor/)).toBeNull();
    // the heading says the one upload failed, not only that it is done
    const summary = zh.uploads.summaryWithFailed.replace('{{done}}', '1').replace('{{total}}', '1').replace('{{failed}}', '1');
    expect(screen.getByRole('heading', { name: summary })).toBeTruthy();

    await act(async () => {
      tray.addFiles([new File(['x'], 'root.pem')], {
        uploadType: 'provision-trustAnchor',
        upload: () => Promise.reject(networkError()),
      });
      await Promise.resolve();
    });
    expect(screen.getByText(zh.uploads.failed.replace('{{reason}}', zh.apiErrors.network))).toBeTruthy();
  });
});
