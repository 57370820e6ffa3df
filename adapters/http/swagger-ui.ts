import type { RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';

/**
 * The interactive API documentation (Swagger UI) of a service or of the gateway.
 *
 * With `tokenRequired` the API documents are behind the AuthenticatedUser policy (docs.authenticated,
 * as in production): a browser opening the UI sends no bearer token by itself, so the UI asks once
 * for the identity provider's access token (kept in the tab's sessionStorage) and sends it with
 * every request it makes, the documents' included. The UI's own files (swagger-ui-dist) carry no
 * information about the API; the documents and every operation tried from the UI do.
 *
 * Each UI gets its own init script (serveFiles): the module's plain `serve` shares one between all
 * the UIs of a process, the last one set up winning.
 */
export interface SwaggerUiOptions {
  readonly title: string;
  /** The document, relative to the UI's page (`../api-docs`) … */
  readonly documentUrl?: string;
  /** … or several, to choose from (the gateway: one per service). */
  readonly documentUrls?: readonly { name: string; url: string }[];
  readonly tokenRequired?: boolean;
}

/** Where the UI keeps the token a user typed in (this tab only). */
export const DOCS_TOKEN_STORAGE_KEY = 'nhsn-api-docs-token';

interface UiRequest { headers: Record<string, string> }
interface BrowserGlobals {
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  prompt(message: string): string | null;
}

/**
 * Runs in the browser (Swagger UI's requestInterceptor; swagger-ui-express writes its source into
 * the page), so it uses nothing but its argument and the browser's globals. A request that carries
 * a token already (the UI's Authorize button) is left alone.
 */
function sendStoredToken(request: UiRequest): UiRequest {
  if (request.headers.Authorization || request.headers.authorization) return request;
  const browser = globalThis as unknown as BrowserGlobals;
  const key = 'nhsn-api-docs-token';
  let token = browser.sessionStorage.getItem(key);
  if (!token) {
    token = browser.prompt('The API documents need your access token (the identity provider\'s bearer token):');
    if (token) browser.sessionStorage.setItem(key, token.trim().replace(/^bearer\s+/i, ''));
    token = browser.sessionStorage.getItem(key);
  }
  if (token) request.headers.Authorization = `Bearer ${token}`;
  return request;
}

/** The handlers to mount at the UI's path (`app.use('/swagger', ...swaggerUiHandlers(...))`). */
export function swaggerUiHandlers(options: SwaggerUiOptions): RequestHandler[] {
  const urls = options.documentUrls ?? [];
  const swaggerOptions: Record<string, unknown> = { persistAuthorization: true, ...(urls.length > 0 ? { urls } : {}) };
  if (options.tokenRequired) swaggerOptions.requestInterceptor = sendStoredToken;
  const setup = {
    customSiteTitle: options.title, swaggerOptions, explorer: urls.length > 0,
    // The init script falls back to a non-URL when swaggerUrl is missing: give the first document then.
    swaggerUrl: options.documentUrl ?? urls[0]?.url,
  };
  return [...swaggerUi.serveFiles(undefined, setup), swaggerUi.setup(undefined, setup)];
}
