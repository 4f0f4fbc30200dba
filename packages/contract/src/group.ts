import { z } from 'zod';
import { ZPageQuery } from './common.js';

export const ZGroup = z
  .object({
    userGroupId: z.number().int(),
    name: z.string(),
    description: z.string(),
    members: z.array(z.string()),
    dateCreated: z.string(),
  })
  .meta({ id: 'Group' });
export type TGroup = z.infer<typeof ZGroup>;

export const ZGroupAddRequest = z
  .object({
    name: z.string().max(128).optional(),
    description: z.string().max(2000).optional(),
    members: z.array(z.string().max(128)).max(10_000).optional(),
  })
  .meta({ id: 'GroupAddRequest' });
export type TGroupAddRequest = z.infer<typeof ZGroupAddRequest>;

/** A group's row id: a positive 32-bit integer on every database. */
const ZUserGroupId = z.number().int().min(1).max(2_147_483_647);

export const ZGroupEditRequest = ZGroupAddRequest.extend({ userGroupId: ZUserGroupId }).meta({
  id: 'GroupEditRequest',
});
export type TGroupEditRequest = z.infer<typeof ZGroupEditRequest>;

export const ZGroupListQuery = ZPageQuery.extend({
  /** Matches the group's name, case-insensitively. */
  search: z.string().max(128).optional(),
});

export const ZGroupDeleteRequest = z.object({ userGroupId: ZUserGroupId }).meta({ id: 'GroupDeleteRequest' });
