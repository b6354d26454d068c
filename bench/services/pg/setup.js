// service.setup of the "pg" calibration kind: the side's own database (calibration_base,
// calibration_head) with 1,000 items, made the first time; every later start finds it ready.
const { Client } = require('pg');

const database = `calibration_${process.env.PERFGATE_SIDE || 'dev'}`;

async function main() {
  const admin = new Client({ database: 'postgres' });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const db = new Client({ database });
  await db.connect();
  await db.query('CREATE TABLE IF NOT EXISTS items (id integer PRIMARY KEY, name text NOT NULL, price numeric NOT NULL)');
  await db.query("INSERT INTO items SELECT i, 'item ' || i, i * 1.5 FROM generate_series(1, 1000) AS i ON CONFLICT DO NOTHING");
  await db.end();
}

main().catch((error) => {
  console.error(`pg calibration setup: ${error.message}`);
  process.exit(1);
});
