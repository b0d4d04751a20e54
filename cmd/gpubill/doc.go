// Command gpubill audits the bills of GPU rental platforms and Chinese
// clouds: it imports a month of exported bills into a SQLite ledger, flags
// the hidden charges, and prints what people act on.
//
// Each subcommand lives in its own file (import.go, audit.go …) holding its
// cobra command, an options struct and a runX function; main.go is one line
// so that tests run the whole CLI in-process (see main_test.go and
// testdata/script/*.txtar at the repository root).
package main
