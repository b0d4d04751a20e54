// Package reports turns the ledger into what a user reads and acts on:
//
//   - Spend: the month's spend broken down by provider, kind, resource …,
//     with the hidden-charge share, the change against the previous month,
//     the top resources and the daily spend;
//   - GPUHours: the real price of a GPU-hour per provider and GPU model
//     (compute plus the storage, traffic, images and seat fees that served
//     it, over the GPU-hours actually used), beside the sticker price;
//   - WhatIf: what the month would have cost with per-second billing,
//     auto-shutdown after N hours, idle storage released after N days;
//   - Instances: every instance with its activity, state, cost, findings
//     and the date its platform will delete it;
//   - FindingsReport: the audit findings with the money at risk;
//   - Refunds: a checklist per platform of the charges to dispute, with
//     evidence, a ready-to-send ticket text, the balance and the platform's
//     refund and invoice rules.
//
// Each report is a plain value computed from the ledger, which writes its
// own JSON (the stable contract, docs/json.md) and lays itself out as a
// document (document.go) for every other format: an aligned terminal table
// (CJK-aware), tab-separated text, GitHub markdown, CSV, an XLSX workbook
// (one sheet per section, exact numbers, totals as formulas) or one
// self-contained HTML page (inline SVG charts, no network).
//
// Money stays exact from the ledger to the output: sums are computed in SQL
// with the exact aggregate dsum() over TEXT columns or with decimal in Go;
// JSON, CSV, TSV and XLSX carry the exact decimal string, and only the human
// formats (table, md, html) round, in one place (format.go). An unknown
// amount is never zero: it is null in JSON, an empty cell in CSV/TSV/XLSX
// and "-" in tables. Amounts of different currencies are never added: every
// total is per currency. Text from bills is neutralised in CSV and XLSX
// (a leading apostrophe before = + - @) and escaped in HTML and markdown.
//
// Translations (zh, en): the shared ones live in i18n.go; each report adds
// its own with addMessages in an init function of its file.
package reports
