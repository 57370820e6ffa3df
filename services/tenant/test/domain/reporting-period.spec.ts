import { expect } from 'chai';
import { localIsoDateTime, nextPeriodStart, periodContaining, startOfLocalDay, upcomingPeriodStarts, type Frequency } from '#tenant/domain/reporting-period.js';

function bounds(frequency: Frequency, instant: string, zone: string): [string, string, number] {
  const period = periodContaining(frequency, new Date(instant), zone);
  return [period.start.toISOString(), period.end.toISOString(), (period.end.getTime() - period.start.getTime()) / 3_600_000];
}

describe('tenant domain: reporting periods', () => {
  it('daily periods on the DST days of America/New_York are 23 and 25 hours long', () => {
    expect(bounds('Daily', '2026-03-08T12:00:00Z', 'America/New_York')).to.deep.equal(['2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z', 23]);
    expect(bounds('Daily', '2026-11-01T12:00:00Z', 'America/New_York')).to.deep.equal(['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z', 25]);
  });

  it('daily periods on the DST days of Europe/London are 23 and 25 hours long', () => {
    expect(bounds('Daily', '2026-03-29T12:00:00Z', 'Europe/London')).to.deep.equal(['2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z', 23]);
    expect(bounds('Daily', '2026-10-25T12:00:00Z', 'Europe/London')).to.deep.equal(['2026-10-24T23:00:00.000Z', '2026-10-26T00:00:00.000Z', 25]);
  });

  it('weekly periods run from Sunday 00:00 local to the next Sunday', () => {
    // Saturday evening in New York is already Sunday in UTC: still the previous local week.
    expect(bounds('Weekly', '2026-11-22T03:00:00Z', 'America/New_York')).to.deep.equal(['2026-11-15T05:00:00.000Z', '2026-11-22T05:00:00.000Z', 168]);
    // The week containing the spring-forward Sunday is one hour short.
    expect(bounds('Weekly', '2026-03-10T12:00:00Z', 'America/New_York')).to.deep.equal(['2026-03-08T05:00:00.000Z', '2026-03-15T04:00:00.000Z', 167]);
  });

  it('monthly periods run from the 1st 00:00 local to the next 1st, across DST and year ends', () => {
    expect(bounds('Monthly', '2026-03-15T00:00:00Z', 'America/New_York')).to.deep.equal(['2026-03-01T05:00:00.000Z', '2026-04-01T04:00:00.000Z', 743]);
    expect(bounds('Monthly', '2026-12-31T23:30:00Z', 'Asia/Tokyo')).to.deep.equal(['2026-12-31T15:00:00.000Z', '2027-01-31T15:00:00.000Z', 744]);
    const period = periodContaining('Monthly', new Date('2026-12-31T23:30:00Z'), 'Asia/Tokyo');
    expect([period.localYear, period.localMonth]).to.deep.equal([2027, 1]);
  });

  it('an instant exactly on a boundary belongs to the period it starts', () => {
    expect(bounds('Daily', '2026-06-01T04:00:00Z', 'America/New_York')[0]).to.equal('2026-06-01T04:00:00.000Z');
    expect(nextPeriodStart('Daily', new Date('2026-06-01T04:00:00Z'), 'America/New_York').toISOString()).to.equal('2026-06-02T04:00:00.000Z');
  });

  it('handles half-hour offsets and zones whose midnight does not exist on the DST day', () => {
    expect(bounds('Daily', '2026-06-01T12:00:00Z', 'Asia/Kolkata')).to.deep.equal(['2026-05-31T18:30:00.000Z', '2026-06-01T18:30:00.000Z', 24]);
    // Chile moves 00:00 → 01:00 on 6 September 2026: the local day starts at 01:00 (-03).
    expect(startOfLocalDay({ year: 2026, month: 9, day: 6 }, 'America/Santiago').toISOString()).to.equal('2026-09-06T04:00:00.000Z');
  });

  it('lists upcoming period starts in order', () => {
    const starts = upcomingPeriodStarts('Weekly', new Date('2026-03-01T12:00:00Z'), 'Europe/London', 3).map((date) => date.toISOString());
    expect(starts).to.deep.equal(['2026-03-08T00:00:00.000Z', '2026-03-15T00:00:00.000Z', '2026-03-22T00:00:00.000Z']);
  });

  it('shows an instant on the facility\'s wall clock with the zone\'s offset (half-hour zones and DST included)', () => {
    expect(localIsoDateTime(new Date('2026-03-08T05:00:00Z'), 'America/New_York')).to.equal('2026-03-08T00:00:00-05:00');
    expect(localIsoDateTime(new Date('2026-03-09T04:00:00Z'), 'America/New_York')).to.equal('2026-03-09T00:00:00-04:00');
    expect(localIsoDateTime(new Date('2026-01-15T12:34:56Z'), 'Asia/Kolkata')).to.equal('2026-01-15T18:04:56+05:30');
    expect(localIsoDateTime(new Date('2026-01-15T12:00:00Z'), 'UTC')).to.equal('2026-01-15T12:00:00+00:00');
  });
});
