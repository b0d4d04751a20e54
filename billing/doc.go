// Package billing holds what gpubill knows about how platforms bill, shared
// by the rules and the reports (both import it; it imports only ledger and money):
//   - policy.go + policies.json: the embedded platform policy table (Policy:
//     billing step, minimum billed duration, what is charged while stopped,
//     release days, refund and invoice rules), each entry with its source;
//     the rules' config overlays it (PolicyLookup);
//   - prices.go + prices.json: the reference price catalog (PriceCatalog,
//     DefaultPrices) and the normalisation of GPU model names that bills
//     and catalog meet on (NormalizeGPUModel);
//   - gpumodels.go + gpumodels.json: which GPU a cloud instance family
//     carries (GPUModelOf);
//   - timeunit.go: time units of billed and consumed quantities (TimeUnit);
//   - spans.go: when a line item really ran (ActiveSpan, IsRunning,
//     UsageSeconds) and what it cost past a point (AddCostBeyond);
//   - sessions.go: on-demand compute sessions (Session, BuildSessions);
//   - rounding.go: time billed beyond a platform's own rule
//     (RoundingBeyondPolicy);
//   - rates.go + rates.json: the replay catalog (Rates): storage, traffic
//     and seat prices, package and spot terms, GPUs not offered and GPU
//     equivalents, each entry with its source, the date seen and a
//     confidence;
//   - bill_periods.go: how far the monthly bills in a ledger cover their
//     months (MonthlyBillFormat, BillPeriodEnds, DataEndsCovered), from
//     what ledger.DB.PeriodImports and DataEnds read.
//
// Everything else here is computed from an item's own fields, the same in
// the audit and in a report.
package billing
