/**
 * The resource-type validators (one per type, as the HL7 validator's `instance.type`): the
 * registry, and how the walk of a resource runs its type's validator around the element walk,
 * for the root resource and for nested ones, each at its own location.
 */
import { expect } from 'chai';
import type { NodeContext } from '#validation/domain/engine/context/node-context.js';
import { ResourceContext } from '#validation/domain/engine/context/resource-context.js';
import { ValidationRun } from '#validation/domain/engine/context/validation-run.js';
import { ValidatorServices } from '#validation/domain/engine/context/validator-services.js';
import { defaultResourceTypeValidators, ResourceTypeValidators, type ResourceTypeValidator } from '#validation/domain/engine/resource-types/index.js';
import { resolveValidatorOptions } from '#validation/domain/engine/validator-options.js';
import { ResourceWalker } from '#validation/domain/engine/walk/walker.js';
import { unknownTerminology } from '#validation/domain/ports/terminology.js';
import { coreSource } from './support/core-definitions.js';

/** Records each call with the resource's location and the issues reported by then. */
class RecordingPatientValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['Patient'];
  readonly calls: string[] = [];

  beforeElements(ctx: NodeContext): void {
    this.calls.push(`before ${ctx.path} (${ctx.run.issues.length} issues)`);
  }

  validate(ctx: NodeContext, patient: Record<string, unknown>): void {
    this.calls.push(`after ${ctx.path} (${ctx.run.issues.length} issues)`);
    if (patient.gender === 'unknown') ctx.nodeOf(patient).child('gender')?.error('UNRECOGNISED_PROPERTY', ['gender']);
  }
}

describe('engine: resource-type validators', function () {
  this.timeout(60_000);

  it('refuses two validators for one resource type', () => {
    const registry = new ResourceTypeValidators([new RecordingPatientValidator()]);
    expect(() => registry.register(new RecordingPatientValidator())).to.throw('a validator for Patient is registered already');
  });

  it('registers the validator of each resource type with rules of its own, named as the HL7 validator names it', () => {
    const registry = defaultResourceTypeValidators();
    const byType = Object.fromEntries(registry.resourceTypes.sort().map((t) => [t, registry.get(t)!.constructor.name]));
    expect(byType).to.deep.equal({
      Bundle: 'BundleValidator',
      CapabilityStatement: 'CapabilityStatementValidator',
      CodeSystem: 'CodeSystemValidator',
      ConceptMap: 'ConceptMapValidator',
      Measure: 'MeasureValidator',
      MeasureReport: 'MeasureValidator',
      OperationDefinition: 'OperationDefinitionValidator',
      Questionnaire: 'QuestionnaireValidator',
      QuestionnaireResponse: 'QuestionnaireValidator',
      SearchParameter: 'SearchParameterValidator',
      StructureDefinition: 'StructureDefinitionValidator',
      ValueSet: 'ValueSetValidator',
    });
  });

  it("runs a type's validator before and after its element walk, for nested resources at their own location", async () => {
    const recorder = new RecordingPatientValidator();
    const services = new ValidatorServices(await coreSource(), unknownTerminology, resolveValidatorOptions({ bestPractice: 'ignore' }));
    const run = new ValidationRun(services, undefined);
    const bundle = {
      resourceType: 'Bundle', type: 'collection',
      entry: [{ fullUrl: 'urn:uuid:5a3e4a1c-0d4f-4a8e-9b1f-2f6b7d8c9e01', resource: { resourceType: 'Patient', id: 'p1', gender: 'unknown', colour: 'blue' } }],
    };
    new ResourceWalker(new ResourceTypeValidators([recorder])).validateResource(ResourceContext.forRoot(run, bundle, 'Bundle'), [], true);
    const patientPath = "Bundle.entry[0].resource.ofType(Patient).where(id = 'p1')";
    // the element walk reports the unknown property between the two calls
    expect(recorder.calls).to.deep.equal([`before ${patientPath} (0 issues)`, `after ${patientPath} (1 issues)`]);
    expect(run.issues.map((i) => `${i.expression?.[0]}: ${i.details.text}`)).to.deep.equal([
      `${patientPath}: Unrecognized property 'colour'`,
      `${patientPath}.gender: Unrecognized property 'gender'`,
    ]);
  });
});
