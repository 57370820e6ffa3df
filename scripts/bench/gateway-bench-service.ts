/** The service behind the gateway benchmark: the standard HTTP app with a paged list of 200 records. */
import { createHttpApp, listen, pagedResult, parsePaging, sendPaged } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';

const records = Array.from({ length: 200 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, facilityId: `F${i}`, facilityName: `Facility ${i}`, timeZone: 'America/New_York' }));
const http = createHttpApp({ serviceName: 'bench-service', logger: silentLogger() });
http.app.get('/api/facilities', (req, res) => {
  const paging = parsePaging(req.query, { defaultPageSize: 10, maxPageSize: 100 });
  const start = (paging.pageNumber - 1) * paging.pageSize;
  sendPaged(res, pagedResult(records.slice(start, start + paging.pageSize), records.length, paging.pageSize, paging.pageNumber));
});
await listen(http.finish(), Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
