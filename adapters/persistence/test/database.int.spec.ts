import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../database.js';
import { insertMany } from '../bulk-insert.js';
import { currentEm, requestContextMiddleware, withForkedEm } from '../request-context.js';
import { Widget, databaseExists, dropTestDatabase, openTestDatabase, uniqueDbName, type TestTables } from './test-database.js';

describe('persistence: database', () => {
  const dbName = uniqueDbName('db');
  let db: Database;

  before(async () => {
    expect(await databaseExists(dbName)).to.equal(false);
    db = await openTestDatabase(dbName);
  });

  after(async () => {
    await db?.close();
    await dropTestDatabase(dbName);
  });

  describe('openDatabase', () => {
    it('creates the database when it is absent', async () => {
      expect(await databaseExists(dbName)).to.equal(true);
    });

    it('applies each migration once, and a restart finds nothing pending', async () => {
      const again = await openTestDatabase(dbName);
      await again.close();
      const rows = await db.orm.em.fork().getKysely<TestTables>()
        .selectFrom('mikro_orm_migrations').select('name').orderBy('name').execute();
      expect(rows.map((r) => r.name)).to.deep.equal([
        'Migration20261122000000_outbox_message',
        'Migration20261122000001_widget',
        // Added after the outbox table by openDatabase (withOutboxMigrations).
        'Migration20261126000000_outbox_parked_rows',
      ]);
      await db.orm.em.fork().getKysely<TestTables>().selectFrom('widget').select('id').limit(1).execute();
    });

    it('lets two instances start together on a fresh database', async () => {
      const fresh = uniqueDbName('race');
      try {
        const both = await Promise.all([openTestDatabase(fresh), openTestDatabase(fresh)]);
        await Promise.all(both.map((d) => d.close()));
        const check = await openTestDatabase(fresh);
        const rows = await check.orm.em.fork().getKysely<TestTables>().selectFrom('mikro_orm_migrations').select('name').execute();
        await check.close();
        expect(rows).to.have.length(3);
      } finally {
        await dropTestDatabase(fresh);
      }
    });

    it('reports ready while the database answers, and not after close', async () => {
      await db.readinessCheck();
      const other = await openTestDatabase(dbName);
      await other.close();
      let error: Error | undefined;
      await other.readinessCheck().catch((e: Error) => { error = e; });
      expect(error?.message).to.equal('database closed');
    });

    it('refuses to use the global EntityManager', async () => {
      expect(() => db.orm.em.create(Widget, { label: 'x' })).to.throw(/global/i);
    });
  });

  describe('request context', () => {
    it('gives each HTTP request its own EntityManager fork', async () => {
      const seen: EntityManager[] = [];
      const app = express();
      app.use(requestContextMiddleware(db.orm));
      app.get('/w', async (_req, res) => {
        const em = currentEm();
        seen.push(em);
        em.create(Widget, { label: 'from-request' });
        await em.flush();
        res.json({ count: await em.count(Widget, { label: 'from-request' }) });
      });
      await request(app).get('/w').expect(200);
      await request(app).get('/w').expect(200);
      expect(seen).to.have.length(2);
      expect(seen[0]).to.not.equal(seen[1]);
      expect(seen[0]).to.not.equal(db.orm.em);
      // entities from the first request do not sit in the second request's identity map
      expect(seen[1]?.getUnitOfWork().getIdentityMap().values().length).to.equal(1);
    });

    it('withForkedEm gives every message a fresh fork, also reachable as the ambient context', async () => {
      const forks: EntityManager[] = [];
      for (let i = 0; i < 2; i++) {
        await withForkedEm(db.orm, async (em) => {
          expect(currentEm()).to.equal(em);
          forks.push(em);
        });
      }
      expect(forks[0]).to.not.equal(forks[1]);
      expect(() => currentEm()).to.throw(/No request context/);
    });
  });

  describe('insertMany', () => {
    beforeEach(async () => {
      await db.orm.em.fork().getKysely<TestTables>().deleteFrom('widget').execute();
    });

    it('lands 10,000 rows in one call, with values sent as parameters', async () => {
      const hostile = `it's "quoted"'); drop table widget; --`;
      const rows = Array.from({ length: 10_000 }, (_, i) => [i === 0 ? hostile : `w${i}`, { n: i, tags: ['a', 'b'] }]);
      const inserted = await insertMany(db.orm.em.fork(), 'widget', ['label', 'data'], rows);
      expect(inserted).to.equal(10_000);
      const em = db.orm.em.fork();
      expect(await em.count(Widget)).to.equal(10_000);
      const first = await em.findOneOrFail(Widget, { label: hostile });
      expect(first.data).to.deep.equal({ n: 0, tags: ['a', 'b'] });
      const last = await em.findOneOrFail(Widget, { label: 'w9999' });
      expect(last.data).to.deep.equal({ n: 9999, tags: ['a', 'b'] });
    });

    it('joins the caller transaction, so a rollback removes every chunk', async () => {
      const rows = Array.from({ length: 2500 }, (_, i) => [`r${i}`, null]);
      await db.orm.em.fork().transactional(async (tx) => {
        expect(await insertMany(tx, 'widget', ['label', 'data'], rows, { chunkSize: 1000 })).to.equal(2500);
        throw new Error('roll back');
      }).catch((e: Error) => expect(e.message).to.equal('roll back'));
      expect(await db.orm.em.fork().count(Widget)).to.equal(0);
    });

    it('skips conflicting rows with onConflict ignore', async () => {
      await insertMany(db.orm.em.fork(), 'widget', ['id', 'label'], [[1, 'one']]);
      const n = await insertMany(db.orm.em.fork(), 'widget', ['id', 'label'], [[1, 'again'], [2, 'two']], { onConflict: 'ignore' });
      expect(n).to.equal(1);
      expect((await db.orm.em.fork().findOneOrFail(Widget, { id: 1 })).label).to.equal('one');
    });

    it('rejects bad identifiers and ragged rows with clear errors', async () => {
      const em = db.orm.em.fork();
      for (const [table, columns, rows, pattern] of [
        ['widget; drop', ['label'], [['x']], /invalid table/],
        ['widget', ['la bel'], [['x']], /invalid column/],
        ['widget', ['label', 'data'], [['x']], /row 0 has 1 values, expected 2/],
        ['widget', [], [], /at least one column/],
      ] as const) {
        let error: Error | undefined;
        await insertMany(em, table, columns, rows).catch((e: Error) => { error = e; });
        expect(error?.message).to.match(pattern);
      }
    });
  });
});
