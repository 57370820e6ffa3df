/**
 * The pre-qualification report's metadata from the report service, in headless Chromium: the page
 * wired like main.ts (the adapter behind the pre-qualification route), with a screenshot saved to
 * test-artifacts/prequal-report-with-report-service.png (report-metadata.spec.ts has the adapter and
 * the route).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromium, type BrowserContext } from 'playwright-core';
import { pageApp, reportServiceForSuite, SUMMARY } from './report-service-stand-in.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));

describe('pre-qualification report: measures and period from the report service', function () {
  this.timeout(60_000);
  const { adapter } = reportServiceForSuite();

  describe('in headless Chromium', () => {
    let context: BrowserContext;
    let server: http.Server;
    let userDataDir: string;

    before(async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`npm run infra\` (it installs Debian's chromium package) and try again`);
      server = http.createServer(pageApp(adapter()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      userDataDir = await mkdtemp(join(tmpdir(), 'prequal-metadata-chromium-'));
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 900 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
    });
    after(async () => {
      await context?.close();
      if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });

    it('renders the measures and the reporting period the report service gave, and saves a screenshot', async () => {
      const page = context.pages()[0] ?? await context.newPage();
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const response = await page.goto(`${origin}/api/result/${SUMMARY.facilityId}/${encodeURIComponent(SUMMARY.reportId)}/$pre-qualification-report`);
      expect(response?.status()).to.equal(200);
      const metadata = await page.locator('dl.meta').innerText();
      expect(metadata).to.include('NHSNdQMAcuteCareHospitalInitialPopulation, NHSNGlycemicControlHypoglycemicInitialPopulation');
      expect(metadata).to.include('2026-10-01T00:00:00Z to 2026-10-31T23:59:59Z');
      expect(await page.locator('p.note').count(), 'no "not shown" note').to.equal(0);
      await mkdir(ARTIFACTS, { recursive: true });
      const file = join(ARTIFACTS, 'prequal-report-with-report-service.png');
      const png = await page.screenshot({ path: file, fullPage: true });
      expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
      expect(existsSync(file)).to.equal(true);
    });
  });
});
