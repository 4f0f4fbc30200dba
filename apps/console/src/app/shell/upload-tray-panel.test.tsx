import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/render';
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
