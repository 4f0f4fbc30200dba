import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { saveText } from '../../../lib/download';

/** Saves the JSON Schema of the authorized policy list (what order/add and order/upload take). */
export async function downloadPolicySchema(): Promise<void> {
  const schema = await apiRequest('GET /ui/order/policy-schema', z.record(z.string(), z.unknown()));
  saveText(`${JSON.stringify(schema, null, 2)}\n`, 'policy.schema.json', 'application/schema+json');
}

export function useDownloadPolicySchema() {
  return useMutation({ mutationFn: downloadPolicySchema });
}
