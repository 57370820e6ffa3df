/** The resource-type validators the engine runs (one module per type, as the HL7 validator's `instance.type`). */
import { BundleValidator } from './bundle-validator.js';
import { CapabilityStatementValidator } from './capability-statement-validator.js';
import { CodeSystemValidator } from './code-system-validator.js';
import { ConceptMapValidator } from './concept-map-validator.js';
import { MeasureValidator } from './measure-validator.js';
import { OperationDefinitionValidator } from './operation-definition-validator.js';
import { QuestionnaireValidator } from './questionnaire-validator.js';
import { ResourceTypeValidators } from './resource-type-validator.js';
import { SearchParameterValidator } from './search-parameter-validator.js';
import { StructureDefinitionValidator } from './structure-definition-validator.js';
import { ValueSetValidator } from './value-set-validator.js';

export { ResourceTypeValidators, type ResourceTypeValidator } from './resource-type-validator.js';

export function defaultResourceTypeValidators(): ResourceTypeValidators {
  return new ResourceTypeValidators([
    new BundleValidator(),
    new CapabilityStatementValidator(),
    new CodeSystemValidator(),
    new ConceptMapValidator(),
    new MeasureValidator(),
    new OperationDefinitionValidator(),
    new QuestionnaireValidator(),
    new SearchParameterValidator(),
    new StructureDefinitionValidator(),
    new ValueSetValidator(),
  ]);
}
