import { AppError } from '../errors.js';

/** The conflicts a node write is refused with, for single writes (NodeService) and bulk imports alike. */

/** 409 for a source path that a live node other than `selfId` already has: two live nodes never share a file. */
export function sourcePathTaken(sourcePath: string, holder: { slug: string }): AppError {
  return new AppError('conflict', `The live context node '${holder.slug}' of this workspace already has the source path '${sourcePath}' (compared ignoring case and Unicode form)`, {
    errors: [{ path: '/sourcePath', message: `is the source path of the live node '${holder.slug}'`, in: 'body' }],
  });
}

export function slugTaken(slug: string): AppError {
  return new AppError('slug_taken', `Another context node of this workspace already has the slug '${slug}'`, {
    errors: [{ path: '/slug', message: 'is already taken', in: 'body' }],
  });
}
