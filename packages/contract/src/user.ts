import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZRole } from './enums.js';

/** A user profile as the server returns it: never a password. */
export const ZUserProfile = z
  .object({
    username: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    company: z.string().nullable(),
    role: ZRole,
    timeZone: z.string(),
    language: z.string(),
    useSso: z.boolean(),
    dateCreated: z.string(),
  })
  .meta({ id: 'UserProfile' });
export type TUserProfile = z.infer<typeof ZUserProfile>;

/**
 * Fields are typed but optional: a missing or empty required field is a business error
 * (`usernameEmpty`…, all reported together as 418), a wrong type is a malformed request (400).
 */
const profileFields = {
  username: z.string().max(128).optional(),
  firstName: z.string().max(128).optional(),
  lastName: z.string().max(128).optional(),
  email: z.string().max(254).optional(),
  company: z.string().max(256).nullable().optional(),
  role: z.string().max(16).optional(),
  timeZone: z.string().max(64).optional(),
  language: z.string().max(16).optional(),
  useSso: z.boolean().optional(),
  password: z.string().max(1024).optional(),
};

export const ZUserAddRequest = z.object(profileFields).meta({ id: 'UserAddRequest' });
export type TUserAddRequest = z.infer<typeof ZUserAddRequest>;

export const ZUserEditRequest = z
  .object({
    ...profileFields,
    /** Required when users change their own password or e-mail, or turn their single sign-on on. */
    currentPassword: z.string().max(1024).optional(),
  })
  .meta({ id: 'UserEditRequest' });
export type TUserEditRequest = z.infer<typeof ZUserEditRequest>;

export const ZUserDeleteRequest = z.object({ username: z.string().max(128).optional() }).meta({ id: 'UserDeleteRequest' });

export const ZUserListQuery = z.object({
  ...ZPageQuery.shape,
  /** Matches username, first or last name, or email, case-insensitively. */
  search: z.string().max(128).optional(),
});

export const ZLoginRequest = z
  .object({ username: z.string().max(128).optional(), password: z.string().max(1024).optional() })
  .meta({ id: 'LoginRequest' });
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLoginResponse = z.object({ sessionToken: z.string(), userProfile: ZUserProfile }).meta({ id: 'LoginResponse' });
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

export const ZSessionResponse = z.object({ userProfile: ZUserProfile, escalated: z.boolean() }).meta({ id: 'SessionResponse' });
export type TSessionResponse = z.infer<typeof ZSessionResponse>;

export const ZRefreshResponse = z.object({ sessionToken: z.string() }).meta({ id: 'RefreshResponse' });

export const ZRolesResponse = z.object({ data: z.array(ZRole) });

/** Display name of spec §3: first plus last name, or the username when empty or both equal. */
export function displayName(profile: Pick<TUserProfile, 'firstName' | 'lastName' | 'username'>): string {
  const first = profile.firstName.trim();
  const last = profile.lastName.trim();
  if ((!first && !last) || first === last) return profile.username;
  return [first, last].filter(Boolean).join(' ');
}
