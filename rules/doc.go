// Package rules is gpubill's audit engine: a registry of rules, each of which
// reads the line items of one billing month from the ledger and returns
// findings (ledger.Finding) with the money at risk, a bilingual reason, the
// basis of the amount and the evidence rows behind it.
//
// Semantics follow DESIGN.md "Rule semantics". Shared building blocks:
//   - package billing: sessions, active spans, time units, the platform
//     policy table and the reference price catalog (shared with reports);
//   - coverage.go: the month's sessions and compute coverage, built once per
//     audit, and which instance a charge serves (parent resource, same
//     resource, or the account as a fallback);
//   - format.go: the one place where rules round money and durations for the
//     text of a finding (amounts themselves stay exact decimals).
//
// The engine loads the month's line items plus the compute items of the
// neighbouring months (so that sessions and idle days at the month's edges
// are judged with their context), runs every enabled rule, fingerprints and
// sorts the findings. Audit stores nothing: the caller saves the findings
// with ledger.DB.SaveAudit; AuditAndSave stores each rule's findings while
// the rules after it still run (ledger.AuditWriter).
//
// The user's config file (config.go, LoadConfig: TOML with [params],
// [[policy]], [[price]], rules_dir) changes parameters, policies and
// reference prices. User SQL rules (userrules.go) run after the built-in
// ones on a read-only ledger connection with a time limit; a failing one
// becomes a Warning of Audit, never an error (docs/user-rules.md).
//
// One rule = one file (stopped_storage.go, min_duration_rounding.go,
// forgotten_instance.go …) plus one registry line in engine.go.
package rules
