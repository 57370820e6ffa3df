import type { Express } from 'express';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/database.js';
import { ARTIFACT_UPLOAD_ROUTES } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule, type ValidationApiDependencies, type ValidationApiModule } from '#validation/composition.js';
import { FHIR_XML_ROUTES, VALIDATE_BODY_ROUTES } from '#validation/adapters/http/validate-routes.js';
import { messageIdOf } from '#validation/domain/engine/message-ids.js';
import { EXT_MESSAGE_ID } from '#validation/domain/engine/outcome/issue.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { isFhirJsonText, type ResourceInput, type ResourceValidator, type ValidateOptions, type ValidationOutcome } from '#validation/domain/ports/resource-validator.js';

/**
 * A validator standing in for the engine: every issue it reports is described in the resource itself
 * (`_issues`), so each test states exactly what the engine "found". It records what it was asked.
 */
export class ScriptedValidator implements ResourceValidator {
  readonly calls: { resource: Record<string, unknown>; options: ValidateOptions | undefined }[] = [];

  async validate(input: ResourceInput, options?: ValidateOptions): Promise<ValidationOutcome> {
    // the routes hand JSON on as text or bytes (read by the engine); the script is in the parsed resource,
    // and what the engine could not read is answered with the engine's issue for it
    let resource: Record<string, unknown>;
    if (isFhirJsonText(input)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(typeof input.json === 'string' ? input.json : new TextDecoder().decode(input.json));
      } catch {
        return unreadable('JSON_PARSE_ERROR');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return unreadable('RESOURCE_NOT_OBJECT');
      if (typeof (parsed as { resourceType?: unknown }).resourceType !== 'string') return unreadable('RESOURCETYPE_MISSING');
      resource = parsed as Record<string, unknown>;
    } else {
      resource = input as Record<string, unknown>;
    }
    this.calls.push({ resource, options });
    const issues = Array.isArray(resource._issues) ? (resource._issues as ValidationOutcome['issue']) : [];
    return { resourceType: 'OperationOutcome', issue: issues };
  }
}

/** The engine's one fatal issue for input that is no JSON resource. */
function unreadable(key: 'JSON_PARSE_ERROR' | 'RESOURCE_NOT_OBJECT' | 'RESOURCETYPE_MISSING'): ValidationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code: 'invalid', details: { text: key }, extension: [{ url: EXT_MESSAGE_ID, valueCode: messageIdOf(key, []) }] }] };
}

export interface TestApi {
  readonly app: Express;
  readonly module: ValidationApiModule;
  readonly openApi: OpenApiBuilder;
}

export function buildTestApi(db: Database, overrides: Partial<ValidationApiDependencies> = {}): TestApi {
  const openApi = new OpenApiBuilder({ title: 'Validation API (test)', version: 'test' });
  const module = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator: new ScriptedValidator(), ...overrides });
  const http = createHttpApp({ serviceName: 'validation-api-test', logger: silentLogger(), openApi, jsonLimit: '60mb', anyMediaTypeRoutes: [...ARTIFACT_UPLOAD_ROUTES, ...FHIR_XML_ROUTES],
    // as the service: these routes read their bodies themselves (FHIR as text, for the engine to read)
    ownBodyRoutes: [...VALIDATE_BODY_ROUTES, ...ARTIFACT_UPLOAD_ROUTES] });
  http.app.use(module.router);
  return { app: http.finish(), module, openApi };
}
