import { ZClassification, ZEmpty, ZSecureRepoNode, type TSecureRepoNode } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiDownload, apiRequest, apiUpload } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import type { UploadContext } from '../../../lib/upload-tray';
import { secureRepoKey } from './get-secure-repo';

export const ZCreateFolderInput = z.object({
  parentNodeId: z.string().optional(),
  folderName: z.string(),
  description: z.string(),
  groups: z.array(z.number().int()),
  /** The folder's CUI / FCI label (ADMIN); absent: none of its own. */
  classification: ZClassification.nullable().optional(),
});
export type CreateFolderInput = z.infer<typeof ZCreateFolderInput>;

export const ZEditNodeInput = z.object({
  nodeId: z.string(),
  description: z.string(),
  /** A folder's groups (ADMIN); absent leaves them. */
  groups: z.array(z.number().int()).optional(),
  /** A folder's own label (ADMIN); absent leaves it, null removes it. */
  classification: ZClassification.nullable().optional(),
});
export type EditNodeInput = z.infer<typeof ZEditNodeInput>;

export function createFolder(input: CreateFolderInput): Promise<TSecureRepoNode> {
  return apiRequest('POST /ui/secure-repo/create-folder', ZSecureRepoNode, { body: ZCreateFolderInput.parse(input) });
}

export function editNode(input: EditNodeInput): Promise<TSecureRepoNode> {
  return apiRequest('POST /ui/secure-repo/edit-file', ZSecureRepoNode, { body: ZEditNodeInput.parse(input) });
}

export function deleteNode(input: { nodeId: string }) {
  return apiRequest('POST /ui/secure-repo/delete', ZEmpty, { body: { nodeId: input.nodeId } });
}

/** Streams a file into a folder (nodeId goes before the file, as the server reads it). */
export function uploadSecureFile(nodeId: string, file: File, context: UploadContext): Promise<TSecureRepoNode> {
  return apiUpload('POST /ui/secure-repo/upload', ZSecureRepoNode, {
    fields: { nodeId, file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}

/** Downloads a file (decrypted by the server, every byte verified; the download is audited). */
export async function downloadSecureFile(node: TSecureRepoNode): Promise<void> {
  const download = await apiDownload('GET /ui/secure-repo/download', { query: { nodeId: node.nodeId } });
  saveBlob(download.blob, download.fileName ?? node.folderName);
}

function useSecureRepoMutation<I, R>(mutationFn: (input: I) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: secureRepoKey }) });
}

export const useCreateFolder = () => useSecureRepoMutation(createFolder);
export const useEditNode = () => useSecureRepoMutation(editNode);
export const useDeleteNode = () => useSecureRepoMutation(deleteNode);
export const useDownloadSecureFile = () => useMutation({ mutationFn: downloadSecureFile });
