/**
 * MeasureConfig__CheckIfMeasureExists: when on, every measure a facility schedules and the
 * mapping a reporting plan points to must exist among the measure mappings. Returns the
 * measures that do not, in input order, without repeats.
 */
export function unknownMeasures(requested: readonly string[], knownNames: ReadonlySet<string>): string[] {
  return [...new Set(requested.filter((measure) => !knownNames.has(measure)))];
}
