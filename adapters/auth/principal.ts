import type { JWTPayload } from 'jose';

/**
 * Who is calling. Two kinds, told apart by `kind` and by nothing a caller can send:
 * - `token`: the caller presented a bearer token that verified; its permissions are exactly the names
 *   its claims list. A permission is a name, never a pattern: `scope: "*"` is the permission named "*",
 *   which no operation requires.
 * - `anonymous`: authentication is off (auth.mode none, loopback only): the local trial's single user,
 *   who may do everything.
 */
export interface TokenPrincipal {
  readonly kind: 'token';
  readonly subject: string;
  /** Permissions from the `permissions` claim (string or array) plus `scope`/`scp` entries. */
  readonly permissions: readonly string[];
  readonly roles: readonly string[];
  readonly claims: JWTPayload;
}

export interface AnonymousPrincipal {
  readonly kind: 'anonymous';
  readonly subject: 'anonymous';
  readonly permissions: readonly [];
  readonly roles: readonly [];
  readonly claims: Readonly<Record<string, never>>;
}

export type Principal = TokenPrincipal | AnonymousPrincipal;

export const ANONYMOUS_PRINCIPAL: AnonymousPrincipal = Object.freeze({
  kind: 'anonymous',
  subject: 'anonymous',
  permissions: Object.freeze([] as const),
  roles: Object.freeze([] as const),
  claims: Object.freeze({}),
});

/** Whether `principal` may perform an operation that needs `permission`. */
export function holdsPermission(principal: Principal, permission: string): boolean {
  return principal.kind === 'anonymous' || principal.permissions.includes(permission);
}
