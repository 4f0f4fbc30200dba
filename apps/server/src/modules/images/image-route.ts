import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import { ImagesRepository } from './images.repository.js';

/**
 * Answers a stored image by its generated name (already checked against the name pattern by the
 * route schema), looked up in the database: the name never becomes a path.
 */
export async function sendImage(
  app: FastifyInstance,
  reply: FastifyReply,
  name: string,
  kind: 'device' | 'package',
): Promise<FastifyReply> {
  const image = await new ImagesRepository(app.services.database.db).find(name);
  if (!image || image.owner_kind !== kind) throw new AppError('entityDoesNotExist', { field: 'image' });
  const stream = await app.services.storage.get(image.storage_key);
  return reply
    .header('content-type', image.content_type)
    .header('content-length', String(image.size))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, max-age=86400, immutable')
    .header('content-security-policy', "default-src 'none'")
    .send(stream);
}
