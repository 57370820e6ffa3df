import type { Express } from 'express';

/**
 * Questions about the app's routes answered by walking express 5's router stack, including
 * routers mounted under a prefix:
 * - `allowedMethods`: which methods exist for a path (405 with `Allow` vs 404);
 * - `routeTemplate`: the full route template that serves a request (`/api/facilities/:id`), a
 *   low-cardinality metric label that survives errors (express resets `req.baseUrl` when an error
 *   leaves a router).
 *
 * This relies on router@2 internals (`layer.matchers`, `layer.rawPath`, `layer.route.methods`,
 * `layer.handle.stack`); the matchers are called directly so the shared layer objects are not
 * mutated. Sub-apps mounted with `app.use(subApp)` are not inspected — mount `express.Router()`s.
 */
interface MatchResult { path: string }
interface LayerLike {
  matchers?: Array<(path: string) => MatchResult | false>;
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: LayerLike[] };
}

interface LayerMatch { matched: string; template: string }

function matchLayer(layer: LayerLike, path: string): LayerMatch | undefined {
  if (layer.slash) return { matched: '', template: '' };
  const matchers = layer.matchers ?? [];
  for (const [index, matcher] of matchers.entries()) {
    const match = matcher(path);
    if (!match) continue;
    const raw = Array.isArray(layer.rawPath) ? layer.rawPath[index] : layer.rawPath;
    return { matched: match.path, template: typeof raw === 'string' ? raw : String(raw) };
  }
  return undefined;
}

/** Visits every route layer whose full path matches, with the template of the prefix before it. */
function visitRoutes(stack: readonly LayerLike[], path: string, prefix: string, visit: (route: NonNullable<LayerLike['route']>, template: string) => boolean): boolean {
  for (const layer of stack) {
    const match = matchLayer(layer, path);
    if (!match) continue;
    if (layer.route) {
      if (visit(layer.route, prefix + match.template)) return true;
    } else if (Array.isArray(layer.handle?.stack)) {
      const rest = path.slice(match.matched.length);
      const template = prefix + (match.template === '/' ? '' : match.template);
      if (visitRoutes(layer.handle.stack, rest.startsWith('/') ? rest : `/${rest}`, template, visit)) return true;
    }
  }
  return false;
}

function appStack(app: Express): LayerLike[] {
  return (app as unknown as { router?: { stack?: LayerLike[] } }).router?.stack ?? [];
}

function handles(route: NonNullable<LayerLike['route']>, method: string): boolean {
  const name = method.toLowerCase();
  return Boolean(route.methods._all || route.methods[name] || (name === 'head' && route.methods.get));
}

export function allowedMethods(app: Express, path: string): string[] {
  const methods = new Set<string>();
  visitRoutes(appStack(app), path, '', (route) => {
    for (const [method, enabled] of Object.entries(route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
    if (route.methods.get) methods.add('HEAD');
    return false;
  });
  return [...methods].sort();
}

/** The template of the first route that handles `method` on `path`, or undefined. */
export function routeTemplate(app: Express, method: string, path: string): string | undefined {
  let found: string | undefined;
  visitRoutes(appStack(app), path, '', (route, template) => {
    if (!handles(route, method)) return false;
    found = template;
    return true;
  });
  return found;
}
