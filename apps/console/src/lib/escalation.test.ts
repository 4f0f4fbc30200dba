import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, errorFromResponse } from './api-errors';
import { closeEscalation, escalationStore, isEscalationRequired } from './escalation';
import { createQueryClient } from './query-client';

const escalationRefusal = () =>
  errorFromResponse(403, { errorToken: 'escalationRequired', errorDescription: 'Confirm with your security key' });

describe('escalation prompt', () => {
  afterEach(() => closeEscalation());

  it('recognises the escalationRequired refusal only', () => {
    expect(isEscalationRequired(escalationRefusal())).toBe(true);
    expect(isEscalationRequired(errorFromResponse(403, { errorToken: 'actionNotAllowed', errorDescription: 'no' }))).toBe(false);
    expect(isEscalationRequired(new ApiError('forbidden', 'no', 403))).toBe(false);
    expect(isEscalationRequired(new Error('escalationRequired'))).toBe(false);
  });

  it('opens when any mutation or query of the client is refused with it', async () => {
    const client = createQueryClient();
    await expect(
      client
        .getMutationCache()
        .build(client, {
          mutationFn: () => Promise.reject(escalationRefusal()),
        })
        .execute(undefined),
    ).rejects.toBeInstanceOf(ApiError);
    expect(escalationStore.get().opened).toBe(true);

    closeEscalation();
    await client
      .fetchQuery({ queryKey: ['refused'], queryFn: () => Promise.reject(escalationRefusal()), retry: false })
      .catch(() => undefined);
    expect(escalationStore.get().opened).toBe(true);
  });

  it('stays closed for other refusals', async () => {
    const client = createQueryClient();
    await client
      .fetchQuery({ queryKey: ['other'], queryFn: () => Promise.reject(new ApiError('forbidden', 'no', 403)), retry: false })
      .catch(() => undefined);
    expect(escalationStore.get().opened).toBe(false);
  });
});
