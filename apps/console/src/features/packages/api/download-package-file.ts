import type { TPackageFile } from '@manifold/contract';
import { useMutation } from '@tanstack/react-query';
import { apiDownload } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';

/** Downloads a file of the package (private files are decrypted by the server, ADMIN only). */
export async function downloadPackageFile(file: TPackageFile): Promise<void> {
  const download = await apiDownload('GET /ui/package/files/download', { query: { fileId: file.fileId } });
  saveBlob(download.blob, download.fileName ?? file.fileName);
}

export function useDownloadPackageFile() {
  return useMutation({ mutationFn: downloadPackageFile });
}
