/**
 * The pre-qualification page in a real headless Chromium (Debian's package, driven by playwright-core):
 * it renders, holds the right counts, filters and sorts, shows hostile messages as text, runs nothing
 * else and loads nothing from anywhere. Saves test-artifacts/prequal-report.png for people to look at.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Category } from '#validation/domain/categorization/category.js';
import type { PreQualIssue } from '#validation/domain/prequal/index.js';
import { preQualRoutes } from '#validation/adapters/prequal/index.js';
import { CATEGORIES, IMG_MESSAGE, issue, sampleIssues, SCRIPT_MESSAGE } from './fixtures.js';

// The project compiles without the DOM library: the few browser shapes used in page callbacks.
interface TableRow { readonly cells: ArrayLike<{ readonly textContent: string | null }> }
interface BrowserGlobals { getComputedStyle(element: unknown): { backgroundColor: string }; alert(message: string): void }

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));
const EXTERNAL_PIXEL_MESSAGE = 'Reference <img src="http://203.0.113.7/pixel.gif"> could not be resolved';

const PROFILE: Category = {
  id: 'profile_mismatch', title: 'Resource does not conform to its profile', severity: 'ERROR', acceptable: false,
  guidance: 'Check the resource against the NHSN profile named in the message.',
};
const TERMINOLOGY: Category = {
  id: 'terminology_unavailable', title: 'Terminology server could not check a code', severity: 'INFORMATION', acceptable: true,
  guidance: 'Informational: the code was not checked.',
};

/** The fixtures' 10 issues plus 12 more, so sorting and filtering have something to work on. */
function browserIssues(): PreQualIssue[] {
  return [
    ...sampleIssues(),
    ...Array.from({ length: 6 }, (_, i) => issue('Profile https://nhsn.example/Encounter: minimum cardinality of class is 1', 'error', [PROFILE.id], `p${i}`, `Bundle.entry[${i}].resource.class`)),
    ...Array.from({ length: 5 }, (_, i) => issue('Unable to check code from http://loinc.org: server unavailable', 'information', [TERMINOLOGY.id], `p${i}`)),
    issue(EXTERNAL_PIXEL_MESSAGE, 'error', [], 'p7'),
  ];
}

describe('pre-qualification page in headless Chromium', function () {
  this.timeout(60_000);
  let server: Server;
  let origin: string;
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  const dialogs: string[] = [];
  const requests: string[] = [];
  const cspViolations: string[] = [];

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`npm run infra\` (it installs Debian's chromium package) and try again`);
    }
    const openApi = new OpenApiBuilder({ title: 'Validation', version: 'test' });
    const http = createHttpApp({ serviceName: 'validation-browser-test', logger: silentLogger(), openApi });
    http.app.use(preQualRoutes(openApi, {
      results: { async *pages(facilityId) { if (facilityId === 'facility-1') yield browserIssues(); } },
      categories: { list: async () => [...CATEGORIES, PROFILE, TERMINOLOGY] },
      reportMetadata: {
        describe: async () => ({
          measures: ['NHSNdQMAcuteCareHospitalInitialPopulation', 'NHSNGlycemicControlHypoglycemicInitialPopulation'],
          periodStart: '2026-10-01T00:00:00Z', periodEnd: '2026-10-31T23:59:59Z', submittedAt: '2026-11-02T08:15:00Z',
        }),
      },
      now: () => new Date('2026-11-22T06:00:00Z'),
    }));
    server = createServer(http.finish());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    userDataDir = await mkdtemp(join(tmpdir(), 'prequal-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => {
      requests.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    const response = await page.goto(`${origin}/api/result/facility-1/report-1/$pre-qualification-report`);
    expect(response?.status()).to.equal(200);
  });

  after(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const cellTexts = (selector: string, column: number) =>
    page.$$eval(`${selector} tbody tr`, (rows, index) => rows.map((row) => (row as unknown as TableRow).cells[index]!.textContent!.trim()), column);
  const visibleMessages = () => page.$$eval('#issues tbody tr:not([hidden]) td.message', (cells) => cells.map((cell) => cell.getAttribute('data-value')));

  it('renders the verdict, the metadata and the styles (allowed by the CSP hash)', async () => {
    expect(await page.title()).to.equal('Pre-qualification report: facility-1 / report-1');
    expect(await page.locator('#verdict').innerText()).to.match(/^Pre-qualified: No\n/);
    expect(await page.locator('#verdict').getAttribute('data-prequalified')).to.equal('false');
    const metadata = await page.locator('dl.meta').innerText();
    expect(metadata).to.include('NHSNdQMAcuteCareHospitalInitialPopulation, NHSNGlycemicControlHypoglycemicInitialPopulation');
    expect(metadata).to.include('2026-10-01T00:00:00Z to 2026-10-31T23:59:59Z');
    // The inline stylesheet applied: the "No" verdict is on its red background.
    expect(await page.locator('#verdict').evaluate((el) => (globalThis as unknown as BrowserGlobals).getComputedStyle(el).backgroundColor)).to.equal('rgb(253, 236, 234)');
    expect(cspViolations).to.deep.equal([]);
  });

  it('holds the right counts in the category table and the chart, unacceptable categories highlighted', async () => {
    const titles = await cellTexts('#categories', 0);
    const counts = (await cellTexts('#categories', 4)).map(Number);
    expect(titles.map((title, i) => [title, counts[i]])).to.deep.equal([
      [PROFILE.title, 6], ['Missing code', 5], [TERMINOLOGY.title, 5], ['Display mismatch', 4], ['Uncategorized', 3],
    ]);
    const blocking = await page.$$eval('#categories tbody tr', (rows) => rows.map((row) => row.classList.contains('blocking')));
    expect(blocking).to.deep.equal([true, true, false, false, true]);
    const bars = await page.$$eval('svg.chart g.bar', (groups) => groups.map((g) => [Number(g.getAttribute('data-count')), g.querySelector('rect')!.getAttribute('fill')]));
    expect(bars).to.deep.equal([[6, '#c62828'], [5, '#c62828'], [5, '#1976d2'], [4, '#1976d2'], [3, '#c62828']]);
    const barWidths = await page.$$eval('svg.chart g.bar rect', (rects) => rects.map((rect) => (rect as unknown as { getBBox(): { width: number } }).getBBox().width));
    expect(barWidths[0]).to.be.greaterThan(barWidths[4]!);
  });

  it('holds one issue row per message with its count, and a status line', async () => {
    const messages = await page.$$eval('#issues tbody td.message', (cells) => cells.map((cell) => cell.getAttribute('data-value')));
    const counts = (await cellTexts('#issues', 4)).map(Number);
    expect(messages).to.have.length(8);
    expect(counts.reduce((sum, n) => sum + n, 0)).to.equal(22);
    expect(Object.fromEntries(messages.map((m, i) => [m, counts[i]]))).to.include({ 'Code is missing': 4, [SCRIPT_MESSAGE]: 1, [EXTERNAL_PIXEL_MESSAGE]: 1 });
    expect(await page.locator('#issue-status').innerText()).to.equal('Showing 8 of 8 messages');
  });

  it('shows <script> and <img> messages as text: no extra element, no dialog, nothing fetched from another origin', async () => {
    const scriptCell = page.locator('#issues td.message', { hasText: '<script>alert(1)</script>' });
    expect(await scriptCell.count()).to.equal(1);
    expect(await scriptCell.evaluate((cell) => cell.firstChild!.textContent!.trim())).to.equal(SCRIPT_MESSAGE);
    expect(await page.locator('#issues td.message', { hasText: IMG_MESSAGE }).count()).to.equal(1);
    expect(await page.locator('script').count()).to.equal(1);
    expect(await page.locator('img').count()).to.equal(0);
    expect(dialogs).to.deep.equal([]);
    const foreign = requests.filter((url) => !url.startsWith(`${origin}/`));
    expect(foreign, 'requests to another origin').to.deep.equal([]);
    expect(requests.filter((url) => !url.endsWith('/favicon.ico'))).to.deep.equal([`${origin}/api/result/facility-1/report-1/$pre-qualification-report`]);
  });

  it('filters the issue rows by text and by minimum severity', async () => {
    await page.locator('#issue-filter').fill('DISPLAY');
    expect(await visibleMessages()).to.have.members(['Display is wrong', 'Display and code are wrong']);
    expect(await page.locator('#issue-status').innerText()).to.equal('Showing 2 of 8 messages');

    await page.locator('#issue-filter').fill('bundle.entry[3]');
    expect(await visibleMessages(), 'expressions are searched too').to.deep.equal(['Profile https://nhsn.example/Encounter: minimum cardinality of class is 1']);

    await page.locator('#issue-filter').fill('');
    await page.locator('#severity-filter').selectOption({ label: 'error' });
    expect(await visibleMessages()).to.have.members(['Code is missing', 'Display and code are wrong', EXTERNAL_PIXEL_MESSAGE,
      'Profile https://nhsn.example/Encounter: minimum cardinality of class is 1']);
    await page.locator('#issue-filter').fill('missing');
    expect(await visibleMessages(), 'text and severity together').to.have.members(['Code is missing', 'Display and code are wrong']);

    await page.locator('#issue-filter').fill('');
    await page.locator('#severity-filter').selectOption({ label: 'all' });
    expect(await visibleMessages()).to.have.length(8);
  });

  it('sorts a table when a header is clicked, and reverses on the second click', async () => {
    const countHeader = page.locator('#issues thead th', { hasText: 'Count' }).locator('button');
    await countHeader.click();
    const ascending = (await cellTexts('#issues', 4)).map(Number);
    expect(ascending).to.deep.equal([...ascending].sort((a, b) => a - b));
    expect(ascending[0]).to.equal(1);
    expect(await page.locator('#issues thead th', { hasText: 'Count' }).getAttribute('aria-sort')).to.equal('ascending');
    await countHeader.click();
    const descending = (await cellTexts('#issues', 4)).map(Number);
    expect(descending).to.deep.equal([6, 5, 4, 3, 1, 1, 1, 1]);

    await page.locator('#issues thead th', { hasText: 'Message' }).locator('button').click();
    const messages = await page.$$eval('#issues tbody td.message', (cells) => cells.map((cell) => cell.getAttribute('data-value')!.toLowerCase()));
    expect(messages).to.deep.equal([...messages].sort());

    await page.locator('#categories thead th', { hasText: 'Title' }).locator('button').click();
    expect(await cellTexts('#categories', 0)).to.deep.equal(['Display mismatch', 'Missing code', PROFILE.title, TERMINOLOGY.title, 'Uncategorized']);
  });

  it('saves a screenshot of the whole page as a test artifact', async () => {
    await page.locator('#issues thead th', { hasText: 'Count' }).locator('button').click();
    await page.locator('#issues thead th', { hasText: 'Count' }).locator('button').click();
    await mkdir(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, 'prequal-report.png');
    const png = await page.screenshot({ path: file, fullPage: true });
    expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
    expect(existsSync(file)).to.equal(true);
  });

  it('works offline as a saved file: the CSP meta element lets its own script run and nothing else', async () => {
    const saved = join(userDataDir, 'saved-report.html');
    const response = await page.request.get(`${origin}/api/result/facility-1/report-1/$pre-qualification-report`);
    await writeFile(saved, await response.text());
    await context.setOffline(true);
    try {
      const offline = await context.newPage();
      await offline.goto(pathToFileURL(saved).href);
      expect(await offline.locator('#verdict').innerText()).to.match(/^Pre-qualified: No/);
      await offline.locator('#issue-filter').fill('loinc');
      expect(await offline.locator('#issue-status').innerText()).to.equal('Showing 1 of 8 messages');
      await offline.close();
    } finally {
      await context.setOffline(false);
    }
  });

  it('notices a dialog when one does open (so "no dialog" above means something)', async () => {
    expect(dialogs).to.deep.equal([]);
    const opened = page.waitForEvent('dialog');
    await page.evaluate(() => {
      setTimeout(() => (globalThis as unknown as BrowserGlobals).alert('probe'), 0);
    });
    await opened;
    expect(dialogs).to.deep.equal(['probe']);
  });
});
