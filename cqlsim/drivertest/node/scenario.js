// Runs the cqlsim acceptance scenario with the Node.js cassandra-driver.
//
// Usage: node scenario.js HOST:PORT[,HOST:PORT...]
//        node scenario.js HOST:PORT[,...] --auth=USER:PASSWORD [--expect-auth-failure]
//
// Connects with the driver's default settings: only the contact points, the port (the driver
// looks for the peers it discovers on protocolOptions.port, 9042 by default, not on the contact
// points' port) and localDataCenter 'datacenter1' (which the driver requires) are given. Then it
// runs DDL, unprepared and prepared DML, a 1,000-row paged read,
// LWT insert and update, a logged batch, a counter update, and UDT and tuple round trips, checking
// every answer. Prints "node scenario: OK" and exits 0 on success; any mismatch exits non-zero.
'use strict';

const assert = require('assert');
const crypto = require('crypto');
const cassandra = require('cassandra-driver');

// authCheck connects with PasswordAuthenticator credentials and runs one query, or expects the
// server to refuse them with its authentication error.
async function authCheck(hosts, port, user, password, expectFailure) {
  const client = new cassandra.Client({
    contactPoints: hosts,
    localDataCenter: 'datacenter1',
    protocolOptions: { port },
    authProvider: new cassandra.auth.PlainTextAuthProvider(user, password),
  });
  try {
    await client.connect();
  } catch (err) {
    await client.shutdown();
    if (!expectFailure) {
      throw err;
    }
    assert.ok(/Provided username and\/or password are incorrect/.test(String(err.message) + JSON.stringify(err.innerErrors || {})),
      'refused without the server\'s message: ' + err.message);
    console.log('node scenario: OK (bad credentials refused)');
    return;
  }
  assert.ok(!expectFailure, 'bad credentials were accepted');
  assert.ok((await client.execute('SELECT release_version FROM system.local')).first(), 'query after authentication');
  await client.shutdown();
  console.log('node scenario: OK (authenticated)');
}

async function main() {
  const hosts = process.argv[2].split(',');
  const port = Number(hosts[0].split(':').pop());
  const authArg = process.argv.slice(3).find((a) => a.startsWith('--auth='));
  if (authArg) {
    const [user, password] = authArg.slice('--auth='.length).split(':');
    await authCheck(hosts, port, user, password, process.argv.includes('--expect-auth-failure'));
    return;
  }
  const client = new cassandra.Client({
    contactPoints: hosts,
    localDataCenter: 'datacenter1',
    protocolOptions: { port },
  });
  await client.connect();
  const ks = 'node_' + crypto.randomBytes(6).toString('hex');
  const q = (query, params, options) => client.execute(query, params, options);
  const p = (query, params, options) => client.execute(query, params, Object.assign({ prepare: true }, options));

  // DDL
  await q(`CREATE KEYSPACE ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await q(`CREATE TYPE ${ks}.addr (street text, zip int)`);
  await q(`CREATE TABLE ${ks}.kv (k int PRIMARY KEY, v text)`);
  await q(`CREATE TABLE ${ks}.rows (p int, c int, v text, PRIMARY KEY (p, c))`);
  await q(`CREATE TABLE ${ks}.counters (k text PRIMARY KEY, n counter)`);
  await q(`CREATE TABLE ${ks}.things (k int PRIMARY KEY, a frozen<addr>, t tuple<int, text>)`);

  // Unprepared DML (QUERY with positional values, types from hints) and prepared DML.
  await q(`INSERT INTO ${ks}.kv (k, v) VALUES (?, ?)`, [1, 'one'], { hints: ['int', 'text'] });
  await q(`INSERT INTO ${ks}.kv (k, v) VALUES (2, 'two')`);
  await p(`INSERT INTO ${ks}.kv (k, v) VALUES (?, ?)`, [3, 'three']);
  const read = async (k) => (await p(`SELECT v FROM ${ks}.kv WHERE k = ?`, [k])).first();
  assert.strictEqual((await read(1)).v, 'one', 'unprepared insert, prepared read');
  assert.strictEqual((await q(`SELECT v FROM ${ks}.kv WHERE k = 2`)).first().v, 'two', 'unprepared read');
  assert.strictEqual((await read(3)).v, 'three', 'prepared insert');
  await p(`UPDATE ${ks}.kv SET v = ? WHERE k = ?`, ['uno', 1]);
  assert.strictEqual((await read(1)).v, 'uno', 'read after update');
  await p(`DELETE FROM ${ks}.kv WHERE k = ?`, [2]);
  assert.strictEqual(await read(2), null, 'read after delete');

  // 1,000 rows, read back in pages of 100.
  const inserts = [];
  for (let c = 0; c < 1000; c++) {
    inserts.push(p(`INSERT INTO ${ks}.rows (p, c, v) VALUES (?, ?, ?)`, [7, c, 'v' + c]));
  }
  await Promise.all(inserts);
  const first = await p(`SELECT c, v FROM ${ks}.rows WHERE p = ?`, [7], { fetchSize: 100 });
  assert.strictEqual(first.rows.length, 100, 'first page size');
  assert.ok(first.pageState, 'first page has a paging state');
  const cs = [];
  for await (const row of await p(`SELECT c, v FROM ${ks}.rows WHERE p = ?`, [7], { fetchSize: 100 })) {
    cs.push(row.c);
  }
  assert.strictEqual(cs.length, 1000, 'paged row count');
  assert.deepStrictEqual(cs, Array.from({ length: 1000 }, (_, i) => i), 'clustering order');

  // LWT insert and update.
  let r = await q(`INSERT INTO ${ks}.kv (k, v) VALUES (10, 'ten') IF NOT EXISTS`);
  assert.strictEqual(r.wasApplied(), true, 'LWT insert applied');
  r = await q(`INSERT INTO ${ks}.kv (k, v) VALUES (10, 'TEN') IF NOT EXISTS`);
  assert.strictEqual(r.wasApplied(), false, 'LWT insert of an existing row');
  assert.strictEqual(r.first().v, 'ten', 'LWT existing value');
  r = await p(`UPDATE ${ks}.kv SET v = ? WHERE k = ? IF v = ?`, ['dix', 10, 'ten']);
  assert.strictEqual(r.wasApplied(), true, 'LWT update applied');
  r = await p(`UPDATE ${ks}.kv SET v = ? WHERE k = ? IF v = ?`, ['zehn', 10, 'ten']);
  assert.strictEqual(r.wasApplied(), false, 'LWT update with a false condition');
  assert.strictEqual((await read(10)).v, 'dix', 'value after LWT');

  // Logged batch.
  await client.batch([
    { query: `INSERT INTO ${ks}.kv (k, v) VALUES (?, ?)`, params: [20, 'twenty'] },
    { query: `INSERT INTO ${ks}.kv (k, v) VALUES (21, 'twenty-one')` },
  ], { prepare: true, logged: true });
  assert.strictEqual((await read(20)).v, 'twenty', 'batch row 20');
  assert.strictEqual((await read(21)).v, 'twenty-one', 'batch row 21');

  // Counter update.
  await p(`UPDATE ${ks}.counters SET n = n + ? WHERE k = ?`, [cassandra.types.Long.fromNumber(5), 'hits']);
  await q(`UPDATE ${ks}.counters SET n = n + 2 WHERE k = 'hits'`);
  const n = (await q(`SELECT n FROM ${ks}.counters WHERE k = 'hits'`)).first().n;
  assert.strictEqual(n.toString(), '7', 'counter');

  // UDT and tuple round trips.
  await p(`INSERT INTO ${ks}.things (k, a, t) VALUES (?, ?, ?)`,
    [1, { street: 'Main St', zip: 12345 }, new cassandra.types.Tuple(3, 'three')]);
  const thing = (await p(`SELECT a, t FROM ${ks}.things WHERE k = ?`, [1])).first();
  assert.strictEqual(thing.a.street, 'Main St', 'udt street');
  assert.strictEqual(thing.a.zip, 12345, 'udt zip');
  assert.strictEqual(thing.t.get(0), 3, 'tuple element 0');
  assert.strictEqual(thing.t.get(1), 'three', 'tuple element 1');

  await q(`DROP KEYSPACE ${ks}`);
  const hostsSeen = client.hosts.length;
  await client.shutdown();
  console.log(`node scenario: OK (${hosts.length} contact points, ${hostsSeen} hosts known)`);
}

main().catch((err) => {
  console.error('node scenario FAILED:', err && err.stack ? err.stack : err);
  process.exit(1);
});
