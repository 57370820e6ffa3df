import { expect } from 'chai';
import { diffProperties } from '#tenant/domain/audit.js';
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import type { Facility } from '#tenant/domain/facility.js';
import { validateFacilityInput } from '#tenant/domain/facility.js';
import { unknownMeasures } from '#tenant/domain/measure-check.js';
import { buildScheduledReport, measuresToReport } from '#tenant/domain/report-schedule.js';
import { periodContaining } from '#tenant/domain/reporting-period.js';
import { validateReportingPlanInput } from '#tenant/domain/reporting-plan.js';
import { timeZoneProblem } from '#tenant/domain/time-zone.js';

function problemsOf(fn: () => unknown): Array<{ field: string; message: string }> {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidInputError) return [...error.problems];
    throw error;
  }
  return [];
}

const facility: Facility = {
  id: '6c0a7d2e-2f7e-4bb0-9c1d-1d5f6f3d0a11', facilityId: 'F1', facilityName: 'One', timeZone: 'America/Chicago',
  scheduledReports: { daily: [], weekly: [], monthly: ['ACH', 'HYPO'] }, vendorVersionId: null, keyId: null, ehrConnections: [], isDeleted: false,
  createDate: new Date('2026-01-01T00:00:00Z'), modifyDate: null,
};

describe('tenant domain: facility rules', () => {
  it('accepts IANA zones and refuses offsets, abbreviations, wrong case and unknown names', () => {
    expect(timeZoneProblem('America/Chicago')).to.equal(null);
    expect(timeZoneProblem('UTC')).to.equal(null);
    expect(timeZoneProblem('America/Argentina/Buenos_Aires')).to.equal(null);
    expect(timeZoneProblem('+05:00')).to.match(/IANA/);
    expect(timeZoneProblem('EST')).to.match(/IANA/);
    expect(timeZoneProblem('america/chicago')).to.match(/IANA/);
    expect(timeZoneProblem('America/chicago')).to.match(/case/);
    expect(timeZoneProblem('Mars/Olympus_Mons')).to.match(/unknown time zone "Mars\/Olympus_Mons"/);
    expect(timeZoneProblem('')).to.match(/required/);
  });

  it('lists every problem of a facility write with the field it concerns', () => {
    const problems = problemsOf(() => validateFacilityInput({
      facilityId: ' ', timeZone: 'Nowhere/Else', scheduledReports: { daily: ['A', 'B'], weekly: ['A'], monthly: ['B', ''] },
    }));
    expect(problems.map((problem) => problem.field)).to.have.members(['facilityId', 'timeZone', 'scheduledReports.monthly', 'scheduledReports']);
    expect(problems.find((problem) => problem.field === 'scheduledReports')!.message).to.match(/duplicate entries found.*: A, B$/);
  });

  it('normalises a valid facility: trims, fills missing lists, blank optional values become null', () => {
    const values = validateFacilityInput({ facilityId: ' F1 ', facilityName: '', timeZone: 'Europe/London', scheduledReports: { daily: [' X '] } });
    expect(values).to.deep.equal({
      facilityId: 'F1', facilityName: null, timeZone: 'Europe/London', scheduledReports: { daily: ['X'], weekly: [], monthly: [] },
      vendorVersionId: null, keyId: null, ehrConnections: undefined,
    });
  });

  it('EHR connections: https token endpoints (http only to loopback), unique names, client id required; URLs normalised', () => {
    const values = validateFacilityInput({
      facilityId: 'F1', timeZone: 'UTC', ehrConnections: [
        { name: 'epic', clientId: ' c-1 ', tokenUrl: 'HTTPS://EHR.Example.org/oauth2/token' },
        { name: 'local', clientId: 'c-2', tokenUrl: 'http://127.0.0.1:8443/token' },
        { name: 'v6', clientId: 'c-3', tokenUrl: 'http://[::1]/token' },
        { name: 'named', clientId: 'c-4', tokenUrl: 'http://localhost:9000/token' },
      ],
    });
    expect(values.ehrConnections).to.deep.equal([
      { name: 'epic', clientId: 'c-1', tokenUrl: 'https://ehr.example.org/oauth2/token' },
      { name: 'local', clientId: 'c-2', tokenUrl: 'http://127.0.0.1:8443/token' },
      { name: 'v6', clientId: 'c-3', tokenUrl: 'http://[::1]/token' },
      { name: 'named', clientId: 'c-4', tokenUrl: 'http://localhost:9000/token' },
    ]);
    const problems = problemsOf(() => validateFacilityInput({
      facilityId: 'F1', timeZone: 'UTC', ehrConnections: [
        { name: 'a', clientId: 'c', tokenUrl: 'http://ehr.example.org/token' },
        { name: 'A', clientId: '', tokenUrl: 'https://user:pw@ehr.example.org/token' },
        { name: 'bad name!', clientId: 'c\u0007d', tokenUrl: 'ftp://ehr.example.org/token' },
        { name: 'c', clientId: 'c', tokenUrl: 'ehr.example.org/token' },
        { name: 'd', clientId: 'c', tokenUrl: 'http://127.0.0.1.evil.example/token' },
        { name: 'e', clientId: 'c', tokenUrl: 'https://ehr.example.org/token#frag' },
      ],
    }));
    expect(problems.map((problem) => problem.field)).to.deep.equal([
      'ehrConnections[0].tokenUrl', 'ehrConnections[1].name', 'ehrConnections[1].clientId', 'ehrConnections[1].tokenUrl',
      'ehrConnections[2].name', 'ehrConnections[2].clientId', 'ehrConnections[2].tokenUrl', 'ehrConnections[3].tokenUrl',
      'ehrConnections[4].tokenUrl', 'ehrConnections[5].tokenUrl',
    ]);
    expect(problems[0]!.message).to.match(/must use https/);
    expect(problems[1]!.message).to.match(/used twice/);
    expect(problems[3]!.message).to.match(/user name or password/);
    expect(problemsOf(() => validateFacilityInput({
      facilityId: 'F1', timeZone: 'UTC', ehrConnections: Array.from({ length: 21 }, (_, i) => ({ name: `n${i}`, clientId: 'c', tokenUrl: 'https://e.example/t' })),
    })).map((problem) => problem.field)).to.deep.equal(['ehrConnections']);
    expect(validateFacilityInput({ facilityId: 'F1', timeZone: 'UTC', ehrConnections: null }).ehrConnections).to.deep.equal([]);
  });

  it('refuses control characters in facilityId (it ends up in message ids)', () => {
    expect(problemsOf(() => validateFacilityInput({ facilityId: 'F\n1', timeZone: 'UTC' })).map((problem) => problem.field)).to.deep.equal(['facilityId']);
  });

  it('checks plan ranges and names the field', () => {
    const problems = problemsOf(() => validateReportingPlanInput({ facilityId: 'F1', measureMappingId: 'm', reportingMonth: 13, reportingYear: 1999, isReporting: true }));
    expect(problems.map((problem) => problem.field)).to.deep.equal(['reportingMonth', 'reportingYear']);
  });

  it('finds measures unknown to the measure mappings, once each', () => {
    expect(unknownMeasures(['A', 'B', 'A', 'C'], new Set(['B']))).to.deep.equal(['A', 'C']);
  });
});

describe('tenant domain: audit diff', () => {
  it('lists changed properties with old and new values, flattening nested objects and skipping bookkeeping dates', () => {
    const after = { ...facility, facilityName: 'Renamed', scheduledReports: { ...facility.scheduledReports, daily: ['D'] }, modifyDate: new Date() };
    expect(diffProperties(facility, after)).to.deep.equal([
      { propertyName: 'facilityName', initialPropertyValue: 'One', newPropertyValue: 'Renamed' },
      { propertyName: 'scheduledReports.daily', initialPropertyValue: '[]', newPropertyValue: '["D"]' },
    ]);
  });

  it('treats creation as every property going from null to its value', () => {
    const changes = diffProperties(null, { facilityId: 'F1', isDeleted: false });
    expect(changes).to.deep.equal([
      { propertyName: 'facilityId', initialPropertyValue: null, newPropertyValue: 'F1' },
      { propertyName: 'isDeleted', initialPropertyValue: null, newPropertyValue: 'false' },
    ]);
  });
});

describe('tenant domain: scheduled report content', () => {
  const march = periodContaining('Monthly', new Date('2026-03-10T00:00:00Z'), 'America/Chicago');
  const mappings = [
    { id: 'm-ach', dqm: 'NHSNdQMAcuteCareHospitalInitialPopulation', measure: 'ACH', frequency: 'Monthly' as const, createDate: new Date(), modifyDate: null },
    { id: 'm-hypo', dqm: 'HypoDqm', measure: 'HYPO', frequency: 'Monthly' as const, createDate: new Date(), modifyDate: null },
  ];
  const plan = (measureMappingId: string, isReporting: boolean, month = 3) => ({
    id: `${measureMappingId}-${month}`, facilityId: 'F1', measureMappingId, reportingMonth: month, reportingYear: 2026, isReporting,
    createDate: new Date(), modifyDate: null,
  });

  it('reports every scheduled measure when the month has no plans', () => {
    expect(measuresToReport(facility, 'Monthly', march, [plan('m-ach', false, 4)], mappings)).to.deep.equal(['ACH', 'HYPO']);
  });

  it('keeps only measures whose plan for the month says isReporting true', () => {
    expect(measuresToReport(facility, 'Monthly', march, [plan('m-ach', true), plan('m-hypo', false)], mappings)).to.deep.equal(['ACH']);
  });

  it('builds nothing for a soft-deleted facility and a deterministic message id otherwise', () => {
    expect(buildScheduledReport({ ...facility, isDeleted: true }, 'Monthly', march, [], mappings)).to.equal(null);
    expect(buildScheduledReport(facility, 'Monthly', march, [], mappings)!.messageId).to.equal('F1-Monthly-2026-03-01T06:00:00.000Z');
  });
});
