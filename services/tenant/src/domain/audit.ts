/**
 * Audit trail of configuration changes (AuditableEventOccurred). The diff lists every changed
 * property with its old and new value; nested objects are flattened with dotted names
 * (`scheduledReports.daily`) and values are rendered as text, as the original's
 * PropertyChanges were.
 */
export type AuditAction = 'Create' | 'Update' | 'Delete' | 'SoftDelete' | 'Restore';

export interface PropertyChange {
  readonly propertyName: string;
  readonly initialPropertyValue: string | null;
  readonly newPropertyValue: string | null;
}

export interface AuditEvent {
  readonly facilityId: string | null;
  readonly serviceName: 'Tenant';
  readonly correlationId: string;
  readonly eventDate: string;
  readonly userId: string | null;
  readonly user: string;
  readonly action: AuditAction;
  readonly resource: string;
  readonly resourceId: string;
  readonly propertyChanges: readonly PropertyChange[];
  readonly notes: string;
}

/** Who made a change; "SystemUser" when the request carries no authenticated identity. */
export interface Actor {
  readonly userId: string | null;
  readonly user: string;
}

export const SYSTEM_ACTOR: Actor = { userId: null, user: 'SystemUser' };

/** Bookkeeping fields that change on every write and say nothing about the configuration. */
const IGNORED = new Set(['createDate', 'modifyDate']);

type Plain = Record<string, unknown>;

function render(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Changed properties between two snapshots; `before` null means creation, `after` null deletion. */
export function diffProperties(before: object | null, after: object | null, prefix = ''): PropertyChange[] {
  const left = new Map<string, unknown>(Object.entries(before ?? {}));
  const right = new Map<string, unknown>(Object.entries(after ?? {}));
  const names = [...new Set([...left.keys(), ...right.keys()])];
  const changes: PropertyChange[] = [];
  for (const name of names) {
    if (prefix === '' && IGNORED.has(name)) continue;
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const oldValue = left.get(name);
    const newValue = right.get(name);
    if (isPlainObject(oldValue) || isPlainObject(newValue)) {
      changes.push(...diffProperties(isPlainObject(oldValue) ? oldValue : null, isPlainObject(newValue) ? newValue : null, path));
      continue;
    }
    const oldText = render(oldValue);
    const newText = render(newValue);
    if (oldText !== newText) changes.push({ propertyName: path, initialPropertyValue: oldText, newPropertyValue: newText });
  }
  return changes;
}
