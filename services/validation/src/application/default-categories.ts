/**
 * The bundled default categories (src/resources/default-categories.json), validated by the same
 * parser as an import, so a broken default file fails loudly at start-up instead of silently
 * categorizing nothing.
 */
import bundled from '../resources/default-categories.json' with { type: 'json' };
import { parseCategorySnapshots, type CategorySnapshot } from '../domain/categorization/category.js';

let cache: readonly CategorySnapshot[] | undefined;

export function defaultCategories(): readonly CategorySnapshot[] {
  cache ??= Object.freeze(parseCategorySnapshots(bundled).map(({ snapshot }) => snapshot));
  return cache;
}
