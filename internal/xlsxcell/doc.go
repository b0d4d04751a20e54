// Package xlsxcell holds what every XLSX writer of gpubill (the reports'
// encoder and the reimbursement packet) must do the same way: write a time
// as an exact Excel serial date, keep the cached values of formulas numeric,
// and neutralise text from bills that a spreadsheet would read as a formula.
package xlsxcell
