import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { ConflictError } from '#shared-kernel/domain/errors.js';

/**
 * Runs a write and turns database constraint violations into ConflictError (HTTP 409), so two
 * concurrent creations of the same FacilityId end with exactly one success and one 409.
 */
export async function translateConstraints<T>(write: () => Promise<T>, messages: { unique: string; foreignKey?: string; field?: string }): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError(messages.unique, { field: messages.field });
    if (error instanceof ForeignKeyConstraintViolationException) {
      throw new ConflictError(messages.foreignKey ?? 'the record is referenced by or refers to another record', { field: messages.field });
    }
    throw error;
  }
}

/** `%`, `_` and `\` are wildcards in LIKE patterns; user text must match literally. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
