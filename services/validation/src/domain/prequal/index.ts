/** The pre-qualification report: ports, model and its generation (pure; rendered by adapters/prequal). */
export * from '../ports/prequal.js';
export * from './prequal-report.js';
export * from './generate-prequal-report.js';
