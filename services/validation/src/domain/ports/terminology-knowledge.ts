/** Port: decides what is known outside the stored artifacts (FHIR core, a terminology server). */
export interface TerminologyKnowledge {
  /** Known without artifacts, e.g. part of the FHIR R4 core definitions. */
  isBuiltIn(kind: 'ValueSet' | 'CodeSystem', url: string): boolean;
  /** Known to the configured terminology server (may be unknown: then false). */
  isAvailableRemotely?(kind: 'ValueSet' | 'CodeSystem', url: string): boolean;
}
