import type { Categorizer } from '../categorization/categorizer.js';
import type { SubmissionKey } from './submission-source.js';

/** Port: the stored submissions of a report. */
export interface ReportSubmissions {
  /**
   * Patients with stored results (their outcome), in one fixed order: what re-validation fetches
   * again and re-categorization touches. With `after`, only those after that patient (a resumed job).
   */
  validatedPatients(facilityId: string, reportId: string, after?: string): Promise<string[]>;
  /** Categorizes the patient's stored issues with `categorizer`; updates the stored verdict, and announces it when it changed. */
  recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void>;
}
