/**
 * Port: FHIR XML read into the JSON representation. Shaping XML needs the R4 definitions, which
 * the engine host has; artifacts uploaded as XML are read through it and stored as JSON (what
 * the engine, the package summaries and GET content read).
 */
export interface FhirXmlReader {
  /** The resource in `xml`; throws UnreadableResourceError (domain/engine/xml/resource-text.ts) when it cannot be read. */
  readXml(xml: string): Record<string, unknown>;
}
