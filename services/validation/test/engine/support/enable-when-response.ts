/** A QuestionnaireResponse whose contained Questionnaire enables its last item by an sdc enableWhenExpression (fhirpath-limits.spec.ts, the memory probes). */
const ENABLE_WHEN_EXPRESSION = 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-enableWhenExpression';
const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">r</div>' };

/** A response to its contained Questionnaire: `answers` answered items, the last one enabled by `expression`. */
export function responseWithEnableWhen(expression: string, answers: number): Record<string, unknown> {
  const qItems = [
    ...Array.from({ length: answers }, (_, i) => ({ linkId: `q${i}`, type: 'string' })),
    { linkId: 'last', type: 'string', extension: [{ url: ENABLE_WHEN_EXPRESSION, valueExpression: { language: 'text/fhirpath', expression } }] },
  ];
  return {
    resourceType: 'QuestionnaireResponse', text: narrative, status: 'completed', questionnaire: '#q',
    contained: [{ resourceType: 'Questionnaire', id: 'q', status: 'active', item: qItems }],
    item: [...Array.from({ length: answers }, (_, i) => ({ linkId: `q${i}`, answer: [{ valueString: `a${i}` }] })), { linkId: 'last', answer: [{ valueString: 'x' }] }],
  };
}
