// Runs the SQL pack (docs/sql/*.sql) on DuckDB over gpubill's Parquet and CSV
// export of the demo and of testdata/scenario, and checks every figure it
// can against gpubill's own reports, exactly (decimal text, to the last
// digit, not just the fen).
//
//   cd scripts/sqlcheck && npm install && node check.mjs /path/to/gpubill
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const gpubill = process.argv[2] || 'gpubill';
const month = '2026-10';
const sources = {
  demo: [join(root, 'testdata/demo')],
  scenario: readdirSync(join(root, 'testdata/scenario', month)).filter((f) => f.endsWith('.csv'))
    .map((f) => join(root, 'testdata/scenario', month, f)),
};
const sql = (name) => readFileSync(join(root, 'docs/sql', name + '.sql'), 'utf8');

// norm makes equal decimals equal text: 1.50 and 1.500000000000 are 1.5.
function norm(v) {
  if (v === null || v === undefined) return null;
  let s = String(v);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

let failures = 0;
let checks = 0;
function expect(what, got, want) {
  checks++;
  if (norm(got) !== norm(want)) {
    failures++;
    console.log(`FAIL ${what}: SQL ${got}, gpubill ${want}`);
  }
}

const run = (db, ...args) => execFileSync(gpubill, ['--db', db, '--lang', 'en', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const json = (db, ...args) => JSON.parse(run(db, ...args, '--month', month, '--format', 'json'));

async function query(conn, text) {
  const r = await conn.runAndReadAll(text);
  // Decimals as exact text: DuckDB's JSON rendering of DECIMAL keeps them.
  return r.getRowObjectsJson();
}

for (const [name, files] of Object.entries(sources)) {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcheck-'));
  const db = join(dir, 'ledger.db');
  run(db, 'import', ...files);
  run(db, 'audit', '--month', month);
  const spend = json(db, 'report', 'spend');
  const findings = json(db, 'report', 'findings');
  const gpuhour = json(db, 'report', 'gpuhour');
  for (const format of ['parquet', 'csv']) {
    const out = join(dir, format);
    run(db, 'export', '--format', 'focus-' + format, '--month', month, '-o', out);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const read = format === 'parquet'
      ? `read_parquet('${out}/*/*.parquet', hive_partitioning = true)`
      // CSV: money columns read as DECIMAL(38, 12), like the Parquet export.
      : `read_csv('${out}/*/*.csv', hive_partitioning = true, header = true, types = {'BilledCost': 'DECIMAL(38,12)', 'x_CashPaid': 'DECIMAL(38,12)', 'x_AmountAtRisk': 'DECIMAL(38,12)', 'PricingQuantity': 'DECIMAL(38,18)', 'x_GpuCount': 'BIGINT'})`;
    await conn.run(`CREATE VIEW focus AS SELECT * FROM ${read}`);
    const tag = `${name}/${format}`;

    // spend by provider, kind, month
    const rows = await query(conn, sql('spend_by_provider_kind_month'));
    const key = (r) => `${r.provider}|${r.kind}|${r.currency}`;
    const byKey = new Map(rows.map((r) => [key(r), r]));
    for (const r of spend.rows) {
      const s = byKey.get(key(r));
      expect(`${tag} spend ${key(r)} billed_cost`, s?.billed_cost, r.billed_cost);
      expect(`${tag} spend ${key(r)} cash_paid`, s?.cash_paid, r.cash_paid);
    }
    expect(`${tag} spend rows`, rows.length, spend.rows.length);

    // hidden-charge share: hidden cost per provider and money at risk per currency
    const hidden = await query(conn, sql('hidden_charge_share'));
    for (const h of hidden) {
      let want = 0n, scale = 12;
      for (const r of spend.rows) {
        if (r.provider !== h.provider || r.currency !== h.currency || ['compute', 'credit', 'tax'].includes(r.kind)) continue;
        want += toUnits(r.billed_cost, scale);
      }
      expect(`${tag} hidden ${h.provider} ${h.currency}`, h.hidden_cost, fromUnits(want, scale));
    }
    for (const t of findings.totals || []) {
      let got = 0n;
      for (const h of hidden) if (h.currency === t.currency && h.amount_at_risk !== null) got += toUnits(h.amount_at_risk, 12);
      expect(`${tag} money at risk ${t.currency}`, fromUnits(got, 12), t.amount_at_risk);
    }

    // stopped storage, egress: each finding's money at risk
    const stopped = await query(conn, sql('stopped_storage'));
    const egress = await query(conn, sql('egress_above_threshold'));
    for (const f of findings.findings) {
      if (f.rule_id === 'stopped_storage') {
        const s = stopped.find((r) => r.provider === f.provider && r.resource_id === f.resource_id);
        expect(`${tag} stopped_storage ${f.resource_id}`, s?.billed_cost, f.amount_at_risk);
      }
    }
    // every resource above the threshold is an egress finding of that
    // amount (the rule also flags network above 20% of the compute served,
    // which the threshold query leaves out)
    for (const e of egress) {
      const f = findings.findings.find((f) => f.rule_id === 'egress' && f.provider === e.provider && f.resource_id === e.resource_id);
      expect(`${tag} egress ${e.resource_id}`, e.network_cost, f?.amount_at_risk);
    }

    // the price of a GPU-hour: compute cost per provider, GPU and pricing model
    const gh = await query(conn, sql('gpu_hour_price'));
    for (const g of gpuhour.gpu_hours) {
      if (!g.gpu_model_known) continue;
      const s = gh.find((r) => r.provider === g.provider && r.gpu_model === g.gpu_model && r.pricing_model === g.pricing_model && r.currency === g.currency);
      expect(`${tag} gpuhour ${g.provider} ${g.gpu_model} ${g.pricing_model} compute_cost`, s?.compute_cost, g.compute_cost);
    }
    conn.closeSync?.();
  }
}

function toUnits(s, scale) {
  const [i, f = ''] = String(s).replace(/^-/, '').split('.');
  const neg = String(s).startsWith('-');
  const u = BigInt(i + f.padEnd(scale, '0').slice(0, scale));
  return neg ? -u : u;
}
function fromUnits(u, scale) {
  const neg = u < 0n;
  const s = (neg ? -u : u).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + s.slice(0, -scale) + '.' + s.slice(-scale);
}

console.log(`${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
