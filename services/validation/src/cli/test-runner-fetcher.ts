/**
 * The fetcher of the HL7 validator's own test runner (ValidationTests), which `--harness` stands in
 * for: references and canonicals resolve to the supporting files (as the CLI's fetcher), and a URL
 * value resolves unless it is on example.org or under http://hl7.org/fhir/invalid (the runner's
 * resolveURL). The HL7 test outcomes were produced with it, so the harness validates with it unless
 * a check's options name the `standalone` fetcher (settings-input.ts, ManifestSettings.fetcher).
 */
import { InMemoryResourceFetcher } from '../domain/ports/resource-fetcher.js';

export class TestRunnerFetcher extends InMemoryResourceFetcher {
  resolvesUrl(url: string): boolean {
    return !url.includes('example.org') && !url.startsWith('http://hl7.org/fhir/invalid');
  }
}
