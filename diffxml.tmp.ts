import { loadXmlCases, runConformance } from '/work/wt/i32-xml/services/validation/test/engine/support/conformance.js';
const s = await runConformance(loadXmlCases());
for (const r of s.results) if (!r.exact) console.log((r.verdictAgree ? '   ' : 'V! ') + r.id, 'exp', r.expected, 'got', r.actual, JSON.stringify(r.errors.map(e => e.expr + ' | ' + e.msg.slice(0, 80))).slice(0, 400));
