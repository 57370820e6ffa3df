/** The pre-qualification report: ports, model and its generation (pure; rendered by adapters/prequal). */
export * from './ports.js';
export * from './prequal-report.js';
export * from './generate-prequal-report.js';
