// Package gpubill holds what the gpubill binary carries besides code: the
// month of sample bills that `gpubill demo` imports (testdata/demo, described
// in testdata/demo-src/README.md). The program itself is cmd/gpubill.
package gpubill

import "embed"

// DemoBills is testdata/demo: a month (October 2026) of bills on five
// platforms in the gpubill template (UTF-8, UTF-8 with BOM, GBK, XLSX) and
// FOCUS, planted with at least one case of each rule.
//
//go:embed testdata/demo
var DemoBills embed.FS

// DemoMonth is the billing month of the demo bills.
const DemoMonth = "2026-10"
